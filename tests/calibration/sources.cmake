list(APPEND GPUPLAN_TEST_SOURCES calibration/calibration_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES calibration/measure_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES calibration/sweep_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES calibration/layer_reference_test.cpp)
