list(APPEND GPUPLAN_TEST_SOURCES core/units_test.cpp core/strings_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES core/csv_test.cpp core/input_file_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES core/verdict_test.cpp core/reason_text_test.cpp)
