list(APPEND GPUPLAN_TEST_SOURCES)
list(APPEND GPUPLAN_TEST_SOURCES cost/roofline_test.cpp cost/memory_test.cpp cost/framework_memory_test.cpp
     cost/eager_kernels_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES cost/collective_test.cpp cost/collective_property_test.cpp
     cost/collective_params_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES cost/rooflines_test.cpp cost/calibration_scale_test.cpp
     cost/gemm_shape_curve_test.cpp cost/grouped_gemm_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES cost/collective_scaleout_test.cpp cost/collective_ll_channels_test.cpp
     cost/collective_auto_test.cpp cost/collective_twin_test.cpp cost/collective_fixed_cost_test.cpp
     cost/collective_p2p_protocol_test.cpp cost/collective_p2p_channel_rate_test.cpp
     cost/collective_rccl_net_test.cpp)
