# Sources of src/report (paths relative to src/).
list(APPEND GPUPLAN_LIB_SOURCES report/table.cpp report/gpu_report.cpp)
