#include "infer/memory_budget.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/units.h"
#include "infer/step.h"

namespace gpuplan {

double serving_weight_bytes(const InferWeights& w, Precision p) {
  const double wide = precision_bytes(Precision::bf16);
  const double head = w.tied_head ? 0 : w.output_head;  // tied: one table
  return (w.layer_matmul + w.routed_experts) * quantised_weight_bytes(p) +
         (w.layer_other + w.input_embedding + head) * wide;
}

namespace {

// Activation workspace per batched token, one GPU: the residual stream and normed input
// (replicated across TP), the QKV output, the MLP's gate/up output and the attention output
// (split TP ways), all 16-bit — the buffers the engine's profiling run sizes for
// max_num_batched_tokens (vLLM profile_run; TensorRT-LLM max_num_tokens).
double activation_bytes_per_token(const ModelSpec& m, int tp) {
  const double h = static_cast<double>(m.hidden);
  const double qkv = static_cast<double>((m.heads + 2 * m.kv_heads) * m.head_dim);
  const double ffn = std::max(static_cast<double>(m.ffn_hidden),
                              static_cast<double>(m.moe.top_k * m.moe.expert_ffn_hidden + m.moe.shared_ffn()));
  const double gated = m.mlp == MlpKind::swiglu ? 2.0 : 1.0;
  return 2.0 * (3 * h + (qkv + gated * ffn + static_cast<double>(m.heads * m.head_dim)) / tp);
}

}  // namespace

InferMemory infer_memory(const InferContext& ctx, const InferPlan& plan) {
  const ModelSpec& m = *ctx.model;
  const Engine& e = *ctx.engine;
  const InferWeights& w = ctx.weights;
  InferMemory mem;
  mem.capacity = ctx.gpu->usable_memory_bytes > 0 ? ctx.gpu->usable_memory_bytes : ctx.gpu->memory_bytes;

  // Layers split pp ways (the first stage also holds the embedding, the last the head), every
  // tensor of a layer split tp ways (experts: ep ways by expert, tp/ep ways within).
  const double wide = precision_bytes(Precision::bf16);
  const LinearWeightFormat wf = linear_weight_format(m, *ctx.gpu, plan.weights);
  const double layers = w.layer_matmul * wf.nonexpert_bytes + w.routed_experts * wf.expert_bytes + w.layer_other * wide;
  const double tables = plan.pp == 1 ? (w.input_embedding + (w.tied_head ? 0 : w.output_head))
                                     : std::max(w.input_embedding, w.output_head);
  mem.weights = (layers / plan.pp + tables * wide) / plan.tp;
  const int atp = plan.attention_tp();  // = tp without attention DP
  if (plan.attention_dp > 1) {
    // Attention DP: the non-expert layers, embeddings and head are split only tp / attention_dp
    // ways (replicated attention_dp times); the routed experts stay split over all tp GPUs.
    const double dense = w.layer_matmul * wf.nonexpert_bytes + w.layer_other * wide;
    const double experts = w.routed_experts * wf.expert_bytes;
    mem.weights = (dense / plan.pp + tables * wide) / atp + experts / plan.pp / plan.tp;
  }

  // Workspace of one scheduler's step (one attention-DP rank's): its tokens at the attention TP.
  const double tokens = e.max_num_batched_tokens;
  const double seqs = std::min(e.max_num_seqs, tokens);
  mem.activations = tokens * activation_bytes_per_token(m, atp) +
                    seqs * 4.0 * static_cast<double>(m.vocab) / atp;  // fp32 logits of the sampled rows
  mem.runtime = e.runtime_bytes;

  const double used = mem.weights + mem.activations + mem.runtime;
  switch (e.budget_rule) {
    case KvBudgetRule::total_fraction:
      mem.engine_cap = e.memory_fraction * mem.capacity;
      mem.kv_budget = mem.engine_cap - used;
      break;
    case KvBudgetRule::free_fraction:
      mem.engine_cap = mem.capacity;
      mem.kv_budget = e.memory_fraction * (mem.capacity - used);
      break;
    case KvBudgetRule::static_fraction:
      mem.engine_cap = e.memory_fraction * mem.capacity;
      mem.kv_budget = std::min(mem.engine_cap - mem.weights, mem.capacity - used);
      break;
  }

  const double length = static_cast<double>(plan.input_len) +
                        (e.reserve_full_sequence ? static_cast<double>(plan.output_len)
                                                 : 0.5 * static_cast<double>(plan.output_len));
  // Hybrids: each sequence also holds its Mamba layers' fixed recurrent state (0 otherwise).
  // Attention DP: a sequence lives on one rank, its KV split over that rank's tp / attention_dp
  // GPUs (the MLA latent and too few KV heads are replicated within them, workload/kv_cache.h);
  // each rank's GPUs hold their own sequences, so the replica holds attention_dp times as many.
  mem.kv_per_seq = kv_bytes_per_seq_per_gpu(ctx.kv, length, plan.kv, atp, plan.pp, e.kv_block_tokens) +
                   recurrent_state_bytes_per_seq_per_gpu(ctx.kv, atp, plan.pp);
  mem.max_seqs = mem.kv_budget > 0 ? std::floor(mem.kv_budget / mem.kv_per_seq) : 0;
  if (plan.attention_dp > 1) mem.max_seqs *= plan.attention_dp;
  mem.fits = mem.max_seqs >= 1;
  if (!mem.fits) {
    if (mem.weights > mem.capacity) {
      mem.reason = fmt::format(
          "{} {} weights are {} per GPU over {} GPU(s), more than the {} of one {}; use more GPUs (--tp/--pp) or "
          "fewer bytes per weight (--weights fp8, int4)",
          m.id, precision_name(plan.weights), format_bytes(mem.weights), plan.gpus_per_replica(),
          format_bytes(mem.capacity), ctx.gpu->id);
    } else if (mem.kv_budget <= 0) {
      mem.reason = fmt::format(
          "weights {} + activations {} + runtime {} per GPU leave no KV cache under {}'s budget ({} {:.2f}); use "
          "more GPUs (--tp/--pp) or fewer bytes per weight (--weights fp8, int4)",
          format_bytes(mem.weights), format_bytes(mem.activations), format_bytes(mem.runtime), e.name,
          budget_rule_name(e.budget_rule), e.memory_fraction);
    } else {
      mem.reason = fmt::format(
          "the KV cache budget {} per GPU holds no {}-token sequence ({} each); shorten the context, use --kv fp8 "
          "or more GPUs",
          format_bytes(mem.kv_budget), static_cast<long long>(length), format_bytes(mem.kv_per_seq));
    }
  }
  return mem;
}

}  // namespace gpuplan
