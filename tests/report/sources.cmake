list(APPEND GPUPLAN_TEST_SOURCES report/default_server_test.cpp report/report_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES report/html_report_test.cpp report/report_words_test.cpp)
