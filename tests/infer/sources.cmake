list(APPEND GPUPLAN_TEST_SOURCES infer/infer_test.cpp)
