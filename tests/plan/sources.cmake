list(APPEND GPUPLAN_TEST_SOURCES plan/evaluate_test.cpp)
