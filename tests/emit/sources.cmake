list(APPEND GPUPLAN_TEST_SOURCES emit/megatron_import_test.cpp emit/torchtitan_import_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES emit/emit_from_cli_test.cpp)
