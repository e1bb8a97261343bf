list(APPEND GPUPLAN_TEST_SOURCES)
list(APPEND GPUPLAN_TEST_SOURCES workload/ops_test.cpp workload/activations_test.cpp workload/eager_elementwise_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES workload/params_test.cpp workload/hf_config_test.cpp
  workload/hf_families_test.cpp workload/hybrid_ssm_test.cpp workload/tp_reductions_test.cpp)
