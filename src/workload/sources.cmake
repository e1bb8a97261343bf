# Sources of src/workload (paths relative to src/).
list(APPEND GPUPLAN_LIB_SOURCES workload/ops.cpp)
list(APPEND GPUPLAN_LIB_SOURCES workload/hf_config.cpp workload/params.cpp workload/kv_cache.cpp)
list(APPEND GPUPLAN_LIB_SOURCES workload/activations.cpp workload/scaling.cpp workload/mamba.cpp)
