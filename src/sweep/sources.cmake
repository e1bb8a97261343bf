# Sources of src/sweep (paths relative to src/). The MPI transport is not here: it is its own
# library, gpuplan_mpi (src/CMakeLists.txt), so libgpuplan never depends on MPI.
list(APPEND GPUPLAN_LIB_SOURCES sweep/spec.cpp sweep/setup.cpp sweep/partition.cpp sweep/result.cpp)
list(APPEND GPUPLAN_LIB_SOURCES sweep/run.cpp sweep/merge.cpp sweep/write.cpp sweep/transport.cpp)
list(APPEND GPUPLAN_LIB_SOURCES sweep/sweep_request.cpp)
