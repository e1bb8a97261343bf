# Sources of src/monitor (paths relative to src/): NVML sampling for `gpuplan monitor`.
list(APPEND GPUPLAN_LIB_SOURCES monitor/sample.cpp monitor/monitor.cpp monitor/nvml_sampler.cpp)
