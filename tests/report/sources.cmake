list(APPEND GPUPLAN_TEST_SOURCES report/report_test.cpp)
