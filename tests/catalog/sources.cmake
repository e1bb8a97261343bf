list(APPEND GPUPLAN_TEST_SOURCES catalog/load_test.cpp catalog/gpu_test.cpp catalog/bad_input_test.cpp)
