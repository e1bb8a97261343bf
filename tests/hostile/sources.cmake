list(APPEND GPUPLAN_TEST_SOURCES hostile/hostile_files_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES hostile/hostile_http_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES hostile/hostile_fields_test.cpp)
