// Disaggregated serving searched over GPU types (issue 30): which GPU should run the prompts,
// with which TP for each pool and which decode batch, when the decodes run on the plan's GPU.
// Splitwise (Patel et al., ISCA 2024) pairs a compute-rich prompt GPU with a bandwidth-rich or
// cheaper token GPU; DistServe (Zhong et al., OSDI 2024) sizes each pool for the same goodput.
// Each candidate is one prefill replica and one decode replica costed by estimate_disagg
// (infer/disagg.h); the fleet figures assume the pools are sized to the same request rate, so
// a request costs 1 / r_p GPU-seconds of prefill and 1 / r_d of decode (r: requests/s per GPU).
#pragma once

#include <string>
#include <vector>

#include "infer/disagg.h"
#include "infer/search.h"

namespace gpuplan {

struct DisaggSearchSpec {
  int tp_max = 8;     // TP of each pool's replica at most (infer-search's --gpus-max)
  double ttft_s = 0;  // 0 = no target: request overhead + prefill + KV transfer (no queueing)
  double tpot_s = 0;  // 0 = no target: the decode pool's step
  InferObjective objective = InferObjective::throughput;
};

struct DisaggCandidate {
  std::string prefill_gpu;
  int prefill_tp = 0;
  int decode_tp = 0;
  double concurrency = 0;  // sequences per decode replica requested (the estimate caps it)
  DisaggEstimate estimate;
  double prefill_requests_per_s_per_gpu = 0;  // the prefill replica's rate (transfer-capped) / its GPUs
  double decode_requests_per_s_per_gpu = 0;
  double prefill_gpus_per_decode_gpu = 0;    // the fleet's ratio at equal pool rates
  double output_tokens_per_s_per_gpu = 0;    // the fleet's, prefill GPUs counted
  double usd_per_million_output_tokens = 0;  // 0 when a pool's GPU has no price
  bool meets_targets = false;
  double score = 0;  // tokens/s per GPU, or output tokens per dollar (objective cost)
};

struct DisaggSearchResult {
  bool found = false;
  std::string reason;  // when !found: what to relax
  long long evaluated = 0;
  long long feasible = 0;
  long long meeting = 0;
  DisaggCandidate best;
  std::vector<DisaggCandidate> best_per_prefill_gpu;  // in the order given; the ones that found a plan
};

// `prefill` are the candidate prefill contexts (same model and engine, each on its GPU's usual
// node; `decode` may be among them), `base` gives the precisions, lengths and EP. Never throws on
// an infeasible space: the result says what to relax.
DisaggSearchResult search_disagg(const std::vector<const InferContext*>& prefill, const InferContext& decode,
                                 const InferPlan& base, const DisaggSearchSpec& spec);

}  // namespace gpuplan
