# Sources of src/report (paths relative to src/): text tables and JSON for every answer.
list(APPEND GPUPLAN_LIB_SOURCES report/gpu_report.cpp report/system_report.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/model_report.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/collective_report.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/train_report.cpp report/calibration_report.cpp report/search_report.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/rooflines_report.cpp report/sweep_report.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/econ_report.cpp)
list(APPEND GPUPLAN_LIB_SOURCES report/infer_report.cpp)
