list(APPEND GPUPLAN_TEST_SOURCES cli/cli_test.cpp)
