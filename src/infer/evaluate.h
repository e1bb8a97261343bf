// The inference evaluator: plan × model × GPU × engine → InferEstimate (TTFT, TPOT, tokens/s,
// memory, bottleneck, cost). An infeasible plan (TP not dividing the heads, a model that does
// not fit) is a value with a reason, never an exception.
#pragma once

#include <optional>
#include <string>

#include "core/verdict.h"

#include "infer/batching.h"
#include "infer/infer_context.h"
#include "infer/infer_plan.h"
#include "infer/memory_budget.h"

namespace gpuplan {

struct InferEstimate {
  bool feasible = false;
  // Why not: the kind (core/verdict.h) and a reason naming the fix. The reason is a full string,
  // not Infeasibility's fixed 192 bytes: serving reasons run past it (203 bytes for Llama 3 70B
  // bf16 on one H200) and this estimate is not trivially copyable anyway (batch_limit, memory).
  Infeasibility::Kind infeasibility = Infeasibility::Kind::none;
  std::string reason;
  InferMemory memory;
  ServingPoint point;
  double output_tokens_per_s = 0;  // all replicas
  double output_tokens_per_s_per_gpu = 0;
  double requests_per_s = 0;       // all replicas
  double ridge_batch = 0;          // decode batch at which the linear layers turn compute-bound
  double usd_per_million_output_tokens = 0;  // 0 = no price in the catalog
  // weights bandwidth | KV bandwidth | compute | communication | engine overhead | activation
  // bandwidth | capacity; none for a structurally invalid plan.
  std::optional<Bottleneck> bottleneck;
  std::string batch_limit;  // what set the running batch: requested, KV capacity, scheduler max_num_seqs

  const char* reason_text() const { return reason.c_str(); }
  // The bottleneck's name as text and JSON show it; "" when there is none.
  const char* bottleneck_text() const { return bottleneck ? bottleneck_name(*bottleneck) : ""; }
};

// Structural checks (TP divides heads, EP divides experts, PP ≤ layers); empty = fine.
std::string check_infer_plan(const ModelSpec& model, const InferPlan& plan);

InferEstimate evaluate_inference(const InferContext& ctx, const InferPlan& plan);

}  // namespace gpuplan
