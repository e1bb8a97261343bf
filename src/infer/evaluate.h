// The inference evaluator: plan × model × GPU × engine → InferEstimate (TTFT, TPOT, tokens/s,
// memory, bottleneck, cost). An infeasible plan (TP not dividing the heads, a model that does
// not fit) is a value with a reason, never an exception.
#pragma once

#include <string>

#include "infer/batching.h"
#include "infer/infer_context.h"
#include "infer/infer_plan.h"
#include "infer/memory_budget.h"

namespace gpuplan {

struct InferEstimate {
  bool feasible = false;
  std::string reason;  // why not, naming the fix
  InferMemory memory;
  ServingPoint point;
  double output_tokens_per_s = 0;  // all replicas
  double output_tokens_per_s_per_gpu = 0;
  double requests_per_s = 0;       // all replicas
  double ridge_batch = 0;          // decode batch at which the linear layers turn compute-bound
  double usd_per_million_output_tokens = 0;  // 0 = no price in the catalog
  std::string bottleneck;   // weights bandwidth | KV bandwidth | compute | communication | engine overhead | capacity
  std::string batch_limit;  // what set the running batch: requested, KV capacity, scheduler max_num_seqs
};

// Structural checks (TP divides heads, EP divides experts, PP ≤ layers); empty = fine.
std::string check_infer_plan(const ModelSpec& model, const InferPlan& plan);

InferEstimate evaluate_inference(const InferContext& ctx, const InferPlan& plan);

}  // namespace gpuplan
