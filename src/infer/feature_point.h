// What the serving features (speculative decoding, prefix caching) share: the plan's serving
// point re-derived under a different cap on running sequences (the draft's weights and KV, or
// shared prefix blocks, change what the KV budget holds), and a request's life on it.
#pragma once

#include "infer/batching.h"
#include "infer/infer_context.h"
#include "infer/infer_plan.h"

namespace gpuplan {

// evaluate_inference's serving point for `plan.mode` with at most `max_running` sequences.
ServingPoint serving_point_at(const InferContext& ctx, const InferPlan& plan, double max_running);

// One request's life on `p` (first token to last, queueing excluded): running × O / tokens/s.
double request_life_s(const ServingPoint& p, const InferPlan& plan);

}  // namespace gpuplan
