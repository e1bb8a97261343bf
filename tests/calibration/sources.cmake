list(APPEND GPUPLAN_TEST_SOURCES calibration/calibration_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES calibration/measure_test.cpp)
