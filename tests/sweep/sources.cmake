list(APPEND GPUPLAN_TEST_SOURCES sweep/spec_test.cpp sweep/partition_test.cpp sweep/write_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES sweep/merge_test.cpp sweep/sweep_cli_test.cpp)
