# Sources of src/plan (paths relative to src/).
list(APPEND GPUPLAN_LIB_SOURCES plan/placement.cpp plan/evaluate.cpp plan/train_structure.cpp plan/layer_cost.cpp plan/rank_load.cpp plan/step_comm.cpp plan/resolve.cpp plan/fit.cpp plan/plan_json.cpp plan/train_request.cpp plan/op_roofline.cpp)
list(APPEND GPUPLAN_LIB_SOURCES plan/nearest_plans.cpp plan/train_fields.cpp plan/plan_rules.cpp plan/activation_offload.cpp plan/moe_dispatch.cpp plan/cuda_graphs.cpp plan/comm_config.cpp plan/pp_layout.cpp)
