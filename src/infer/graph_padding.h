// CUDA-graph padding of pure-decode steps (docs/model/inference.md §4, "CUDA-graph padding").
// An engine that captures its decode step as CUDA graphs at fixed batch sizes and pads (vLLM's
// captured sizes; TensorRT-LLM's cuda_graph_config {enable_padding: true, batch_sizes}) runs a
// step of b decodes without a prompt as the graph of the smallest captured size ≥ b: the extra
// rows are dummy sequences of one cached token (TensorRT-LLM PR #5190, "replicate dummy request
// for cuda graph padding"), so every per-token cost (GEMMs, routed experts, norms, the output
// head) is paid for the padded count while the KV cache read stays the real sequences'. A step
// that carries a prompt runs without graphs (TensorRT-LLM: ScheduledRequests.can_run_cuda_graph
// needs no context request), unpadded; so does one beyond the largest captured size.
#pragma once

#include <vector>

#include "infer/step.h"

namespace gpuplan {

// The captured size a pure-decode step of `decodes` sequences (per attention-DP rank) replays:
// the smallest of `sizes` (increasing) ≥ it; `decodes` itself when `sizes` is empty or all are
// smaller (no graph, no padding).
double graph_padded_batch(const std::vector<double>& sizes, double decodes);

// What padding adds to a steady state's mean step of one stage: `light_share` of its steps are
// pure decodes of `decodes` sequences (all attention-DP ranks together) at `context` tokens
// each, padded per rank; returns `mean` with graph_padding_s (light_share × (the padded step −
// the unpadded one)) added to total_s and graph_padded_decodes set. `mean` unchanged when the
// engine has no captured sizes or nothing is padded.
StepCost with_graph_padding(const InferContext& ctx, const InferPlan& plan, StepCost mean, double decodes,
                            double context, double light_share);

}  // namespace gpuplan
