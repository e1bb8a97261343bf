#include "infer/prefix_cache.h"

#include <algorithm>
#include <cmath>

#include "infer/feature_point.h"
#include "infer/step.h"
#include "workload/kv_cache.h"

namespace gpuplan {
namespace {

// One prefill step of `n` prompts of `in` tokens of which `cached` are in the cache. The first
// computed token of each prompt is costed as a decode attending to the cached prefix (it reads
// that KV once: one FlashAttention pass over the prefix per prompt); the other computed tokens
// attend causally among themselves (step_cost) and to the whole prefix (added here, at the
// attention rate step_cost used). With every token cached, engines still recompute the last
// one to produce logits (vLLM: a full hit recomputes the final token), hence computed ≥ 1.
double prefix_prefill_s(const InferContext& ctx, const InferPlan& plan, double n, double in, double cached) {
  const double computed = std::max(1.0, in - cached);
  const StepCost c = step_cost(ctx, plan, {n, cached, n * (computed - 1), computed});
  double extra_s = 0;
  if (cached > 0 && computed > 1 && c.attention_compute_s > 0) {
    const double rate = c.attention_flops / c.attention_compute_s;
    const double keys = static_cast<double>(ctx.kv.full_layers) * cached +
                        static_cast<double>(ctx.kv.sliding_layers) * kv_tokens_sliding(ctx.kv, cached);
    extra_s = n * (computed - 1) * ctx.attention_flops_per_key_layer * keys / (plan.tp * plan.pp) / rate;
  }
  return c.total_s + extra_s;
}

}  // namespace

PrefixCacheEstimate estimate_prefix_cache(const InferContext& ctx, const InferPlan& plan, const InferEstimate& base,
                                          const PrefixCacheInput& in) {
  PrefixCacheEstimate s;
  if (!base.feasible) {
    s.reason = base.reason;
    return s;
  }
  const Engine& e = *ctx.engine;
  const double prompt = static_cast<double>(plan.input_len);
  s.cached_tokens = in.hit_rate * prompt;
  s.computed_tokens = std::max(1.0, prompt - s.cached_tokens);

  // Memory: blocks are shared only when full (vLLM hashes full blocks), so the shared prefix is
  // S rounded down to whole blocks, held once per GPU; each sequence holds the rest. Hits beyond
  // the shared prefix come from blocks of earlier requests the engine keeps while memory is
  // free (evicted least-recently-used first): they take no room from running sequences, and H
  // is the input that says how often they are still there.
  const double block = std::max(1.0, e.kv_block_tokens);
  s.shared_blocks_tokens = std::floor(in.shared_prefix_tokens / block) * block;
  s.shared_kv_bytes = s.shared_blocks_tokens > 0
                          ? kv_bytes_per_seq_per_gpu(ctx.kv, s.shared_blocks_tokens, plan.kv, plan.tp, plan.pp, block)
                          : 0;
  const double length = prompt + (e.reserve_full_sequence ? 1.0 : 0.5) * static_cast<double>(plan.output_len);
  s.kv_per_seq_bytes =
      kv_bytes_per_seq_per_gpu(ctx.kv, length - s.shared_blocks_tokens, plan.kv, plan.tp, plan.pp, block);
  const double budget = base.memory.kv_budget - s.shared_kv_bytes;
  s.max_seqs = budget > 0 ? std::floor(budget / s.kv_per_seq_bytes) : 0;
  const double max_running = std::min(s.max_seqs, e.max_num_seqs);
  if (max_running < 1 || (plan.mode == InferMode::batch && plan.load > max_running)) {
    s.reason = "the shared prefix and the sequences do not fit the KV budget; use a smaller --batch or more GPUs";
    return s;
  }
  const ServingPoint p = serving_point_at(ctx, plan, max_running);
  s.running = p.running;

  // The prompt work shrinks by the ratio of a prefill step with and without the cache, for the
  // prompts one step holds (the running batch's share per pipeline stage, at most what the
  // step's token budget fits).
  const double micro = std::max(1.0, p.running / plan.pp);
  s.prompts_per_prefill_step = std::max(1.0, std::min(micro, std::floor(e.max_num_batched_tokens / prompt)));
  s.prefill_step_s = prefix_prefill_s(ctx, plan, s.prompts_per_prefill_step, prompt, s.cached_tokens);
  s.prefill_step_uncached_s = prefix_prefill_s(ctx, plan, s.prompts_per_prefill_step, prompt, 0);
  s.prefill_ratio = s.prefill_step_s / s.prefill_step_uncached_s;
  s.prefill_prompt_tokens_per_s = s.prompts_per_prefill_step * prompt / s.prefill_step_s * plan.replicas;

  // TTFT: the engine's fixed cost per request stays; the prompt work scales by the ratio. TPOT:
  // the pure decode step stays (attention still reads the full context), the prompt work mixed
  // into decode steps (chunked or in-flight prefill) scales by the ratio.
  const StepCost decode = step_cost(ctx, plan, {micro, prompt + 0.5 * static_cast<double>(plan.output_len), 0, 0});
  const double prompt_share_s = std::max(0.0, p.tpot_s - plan.pp * decode.total_s);
  s.tpot_s = p.tpot_s - prompt_share_s * (1 - s.prefill_ratio);
  const double service0_s = p.ttft_s - p.queue_s;
  // The closed loop's TTFT carries the engine's fixed cost per request (batching.cpp); a static
  // batch's TTFT is its prefill only.
  const double fixed_s = plan.mode == InferMode::batch ? 0.0 : std::min(service0_s, e.request_overhead_s);
  const double service_s = fixed_s + (service0_s - fixed_s) * s.prefill_ratio;
  const double out = static_cast<double>(plan.output_len);
  // A request's life: where prompts ride in the decode steps (continuous batching, TPOT carries
  // the prompt share) every one of its O steps is shorter; where they run in steps of their own
  // (static batch, lockstep) the first token's prefill and the O − 1 decode steps change.
  const bool mixed = prompt_share_s > 0;
  const double life_s = request_life_s(p, plan) - (mixed ? out * (p.tpot_s - s.tpot_s)
                                                         : (service0_s - service_s) + std::max(0.0, out - 1) * (p.tpot_s - s.tpot_s));
  const double rate = p.running / life_s;
  const double queue_s = p.in_flight > p.running ? (p.in_flight - p.running) / rate : 0;
  s.ttft_s = queue_s + service_s;
  s.output_tokens_per_s = p.running * out / life_s * plan.replicas;
  s.output_tokens_per_s_per_gpu = s.output_tokens_per_s / plan.gpus();
  s.requests_per_s = rate * plan.replicas;
  s.feasible = true;
  return s;
}

}  // namespace gpuplan
