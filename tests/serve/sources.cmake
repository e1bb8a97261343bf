list(APPEND GPUPLAN_TEST_SOURCES serve/api_test.cpp)
