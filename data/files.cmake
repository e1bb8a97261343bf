# Every data file embedded into the binary as the default catalog, relative to data/.
# Each folder lists its own files (no globbing: adding a file is a reviewed change).
set(GPUPLAN_DATA_FILES "")
include(${CMAKE_CURRENT_LIST_DIR}/hardware/gpus/files.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/hardware/links/files.cmake)
