// The throughput–latency curve of one serving plan: the same plan answered at 1, 2, 4, ...
// requests in flight (closed loop, continuous batching) up to what its KV budget holds, each
// point's output tokens/s per GPU against TPOT and TTFT. What the HTML report of `infer` draws;
// every point is an answer_infer, nothing is re-derived.
#pragma once

#include <vector>

#include "infer/infer_request.h"

namespace gpuplan {

struct InferCurvePoint {
  double concurrency = 0;
  bool feasible = false;
  double tpot_s = 0;
  double ttft_s = 0;
  double output_tokens_per_s_per_gpu = 0;
};

// Concurrency 1, 2, 4, ... up to the plan's max_seqs (at most 4,096; the request's own load
// is ignored). Throws Error on bad input, as answer_infer does.
std::vector<InferCurvePoint> infer_curve(const Catalog& catalog, const InferRequest& request);

// The `infer` question of one replica of `plan` (an infer-search result) under `search`'s model,
// GPU, engine and lengths: what infer_curve needs to draw the chosen plan's curve.
InferRequest infer_request_for(const InferSearchRequest& search, const InferPlan& plan);

}  // namespace gpuplan
