# Sources of src/report (paths relative to src/).
list(APPEND GPUPLAN_LIB_SOURCES report/table.cpp report/gpu_report.cpp report/system_report.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/model_report.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/error_stats.cpp report/collective_report.cpp report/collective_validation.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/train_report.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/train_validation.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/econ_report.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/infer_report.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/infer_validation.cpp)
