# Every data file embedded into the binary as the default catalog, relative to data/.
# Each folder lists its own files (no globbing: adding a file is a reviewed change).
set(GPUPLAN_DATA_FILES "")
include(${CMAKE_CURRENT_LIST_DIR}/hardware/gpus/files.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/hardware/links/files.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/hardware/switches/files.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/hardware/nics/files.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/hardware/systems/files.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/hardware/fabrics/files.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/clouds/files.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/fitted/efficiency/files.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/fitted/collectives/files.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/models/files.cmake)
