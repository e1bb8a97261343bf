list(APPEND GPUPLAN_TEST_SOURCES monitor/monitor_test.cpp)
