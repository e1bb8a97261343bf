list(APPEND GPUPLAN_TEST_SOURCES infer/infer_test.cpp infer/infer_search_test.cpp infer/step_test.cpp
     infer/infer_request_test.cpp infer/closed_loop_test.cpp
     infer/serving_features_test.cpp infer/attention_dp_test.cpp infer/tp_collective_memo_test.cpp
     infer/sim_engine_test.cpp infer/moe_terms_test.cpp infer/search_sim_test.cpp
     infer/moe_precision_test.cpp infer/attention_dp_spread_test.cpp infer/batch_wait_test.cpp
     infer/finite_run_test.cpp infer/host_time_test.cpp infer/graph_padding_test.cpp
     infer/mla_decode_test.cpp
     infer/decode_kv_rate_test.cpp
     infer/fp8_block_scale_test.cpp)
