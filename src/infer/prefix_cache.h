// Automatic prefix caching on top of a serving point: a share H of every prompt's tokens is
// found in the engine's KV cache (vLLM automatic prefix caching: blocks keyed by a hash of
// their tokens and all before them; SGLang RadixAttention: a radix tree over token ids), so
// prefill computes only the missed (1 − H)·I tokens, while those tokens still attend to, and
// read the KV of, the whole cached prefix. A prefix shared by every request (a system prompt,
// S tokens) is held once per GPU, not once per sequence. Formulas: docs/model/serving-features.md §2.
#pragma once

#include <string>

#include "infer/evaluate.h"
#include "infer/infer_context.h"
#include "infer/infer_plan.h"

namespace gpuplan {

struct PrefixCacheInput {
  double hit_rate = 0;               // H: share of prompt tokens found in the cache, [0, 1]
  double shared_prefix_tokens = 0;   // S: tokens every request shares (held once), ≤ H × input_len
};

struct PrefixCacheEstimate {
  bool feasible = false;
  std::string reason;
  double cached_tokens = 0;          // H × I per request
  double computed_tokens = 0;        // prompt tokens prefill computes per request (≥ 1)
  double shared_blocks_tokens = 0;   // S rounded down to whole KV blocks (only full blocks are shared)
  double shared_kv_bytes = 0;        // per GPU, the shared prefix held once
  double kv_per_seq_bytes = 0;       // per GPU, one sequence's own blocks
  double max_seqs = 0;
  double running = 0;
  double prompts_per_prefill_step = 0;  // the prompts one prefill step holds (sets the ratio below)
  double prefill_step_s = 0;            // that step with the cache
  double prefill_step_uncached_s = 0;   // the same step with H = 0
  double prefill_ratio = 0;             // the two: the prompt work's share of TTFT and TPOT scales by it
  double prefill_prompt_tokens_per_s = 0;  // prompt tokens (cached included) a replica's prefill serves, all replicas
  double ttft_s = 0;
  double tpot_s = 0;
  double output_tokens_per_s = 0;  // all replicas
  double output_tokens_per_s_per_gpu = 0;
  double requests_per_s = 0;
};

// `base` is evaluate_inference(ctx, plan) (its KV budget is reused).
PrefixCacheEstimate estimate_prefix_cache(const InferContext& ctx, const InferPlan& plan, const InferEstimate& base,
                                          const PrefixCacheInput& in);

}  // namespace gpuplan
