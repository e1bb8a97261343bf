list(APPEND GPUPLAN_TEST_SOURCES plan/evaluate_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES plan/mechanisms_test.cpp plan/optimizer_options_test.cpp plan/scaling_recipe_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES plan/placement_test.cpp plan/fit_test.cpp plan/train_request_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES plan/nearest_plans_test.cpp plan/activation_offload_test.cpp plan/moe_dispatch_test.cpp)
