list(APPEND GPUPLAN_TEST_SOURCES catalog/hf_hub_cache_test.cpp catalog/load_test.cpp catalog/gpu_test.cpp catalog/bad_input_test.cpp catalog/gpu_data_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES catalog/topology_test.cpp catalog/cloud_test.cpp catalog/strict_catalog_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES catalog/framework_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES catalog/topology_import_test.cpp)
