# Sources of src/infer (paths relative to src/).
list(APPEND GPUPLAN_LIB_SOURCES
  infer/infer_context.cpp
  infer/memory_budget.cpp
  infer/attention_dp_spread.cpp
  infer/moe_routing.cpp
  infer/step.cpp
  infer/batching.cpp
  infer/batch_wait.cpp
  infer/evaluate.cpp
  infer/search.cpp
  infer/infer_request.cpp
  infer/infer_curve.cpp
  infer/feature_point.cpp
  infer/spec_decode.cpp
  infer/prefix_cache.cpp
  infer/disagg.cpp
  infer/slo.cpp
  infer/infer_features.cpp
  infer/sim_workload.cpp
  infer/sim_engine.cpp
  infer/sim_slo.cpp
  infer/sim_answer.cpp
  infer/finite_run.cpp
  infer/search_sim.cpp
  infer/infer_fields.cpp
  infer/disagg_search.cpp
)
