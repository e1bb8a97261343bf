#include "infer/spec_decode.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cost/roofline.h"
#include "infer/feature_point.h"
#include "infer/step.h"

namespace gpuplan {

double spec_expected_tokens(int draft_tokens, double acceptance) {
  // Leviathan et al. 2023 eq. 1: E[tokens per verify] = (1 − A^(K+1)) / (1 − A), the mean of a
  // geometric run of accepted drafts capped at K, plus the one token the target always adds
  // (the correction at the first rejection, or the bonus token when all K are accepted).
  if (acceptance <= 0) return 1;
  return (1 - std::pow(acceptance, draft_tokens + 1)) / (1 - acceptance);
}

ModelSpec mtp_draft_model(const ModelSpec& model) {
  ModelSpec m = model;
  m.id = model.id + "-mtp";
  m.layers = std::max<std::int64_t>(1, model.mtp_layers);
  m.mtp_layers = 0;
  // DeepSeek-V3's MTP block is an MoE block whatever the first dense layers of the trunk are.
  m.moe.dense_layers = 0;
  m.moe.layer_freq = 1;
  m.layer_is_moe.clear();
  m.layer_is_sliding.clear();
  m.published_params = 0;
  m.published_active_params = 0;
  return m;
}

SpecDecodeEstimate estimate_spec_decode(const InferContext& target, const InferContext& draft, const InferPlan& plan,
                                        const InferEstimate& base, const SpecDecodeInput& in) {
  SpecDecodeEstimate s;
  s.expected_tokens = spec_expected_tokens(in.draft_tokens, in.acceptance);
  if (!base.feasible) {
    s.reason = base.reason;
    return s;
  }
  const Engine& e = *target.engine;
  const double K = in.draft_tokens;
  const double wide = precision_bytes(Precision::bf16);
  const double q = quantised_weight_bytes(plan.weights);

  // Memory: the draft's weights sit on every GPU of the replica (split draft_tp ways); every
  // running sequence also holds the draft's KV and K speculative positions in the target's KV.
  const InferWeights& dw = draft.weights;
  const double draft_layers = (dw.layer_matmul + dw.routed_experts) * q + dw.layer_other * wide;
  s.draft_weights_bytes =
      (in.mtp ? draft_layers : serving_weight_bytes(dw, plan.weights)) / static_cast<double>(in.draft_tp);
  const double length = static_cast<double>(plan.input_len) +
                        (e.reserve_full_sequence ? 1.0 : 0.5) * static_cast<double>(plan.output_len);
  s.draft_kv_per_seq_bytes = kv_bytes_per_seq_per_gpu(draft.kv, length, plan.kv, in.draft_tp, 1, e.kv_block_tokens);
  s.spec_slots_per_seq_bytes = kv_bytes_per_seq_per_gpu(target.kv, K, plan.kv, plan.tp, plan.pp);
  const double budget = base.memory.kv_budget - s.draft_weights_bytes;
  const double per_seq = base.memory.kv_per_seq + s.draft_kv_per_seq_bytes + s.spec_slots_per_seq_bytes;
  s.max_seqs = budget > 0 ? std::floor(budget / per_seq) : 0;
  const double max_running = std::min(s.max_seqs, e.max_num_seqs);
  if (max_running < 1 || (plan.mode == InferMode::batch && plan.load > max_running)) {
    s.reason = fmt::format(
        "with the draft on board (weights {:.2f} GiB, KV {:.1f} MiB per sequence per GPU) the KV budget holds {} "
        "sequences; use fewer --spec-draft-tokens, a smaller draft, a smaller --batch or more GPUs",
        s.draft_weights_bytes / (1024.0 * 1024 * 1024), s.draft_kv_per_seq_bytes / (1024.0 * 1024), s.max_seqs);
    return s;
  }
  const ServingPoint p = serving_point_at(target, plan, max_running);
  s.running = p.running;

  // One speculative step of one replica (pp = 1, checked by the caller): K draft decode steps
  // of the running batch, then one target step over K + 1 positions per sequence. The verify
  // step reads the weights once (memory-bound decode: Pope et al. 2022 §2), runs the linear
  // layers, elementwise passes and collectives over b(K + 1) tokens, writes the K drafted
  // positions' KV, and reads each sequence's cached KV once for its K + 1 queries (one
  // FlashAttention tile holds them) while doing K + 1 times the attention FLOPs.
  const double micro = p.running;
  const double context = static_cast<double>(plan.input_len) + 0.5 * static_cast<double>(plan.output_len);
  InferPlan dplan = plan;
  dplan.tp = in.draft_tp;
  dplan.pp = 1;
  dplan.ep = 1;
  dplan.replicas = 1;
  const StepCost plain = step_cost(target, plan, {micro, context, 0, 0});
  // Drafted positions: K tokens per sequence, each its own logits row (span 1), attention added below.
  StepCost verify = step_cost(target, plan, {micro, context, micro * K, 1});
  const double attention_s = roofline_time_s(verify.kv_mem_s, plain.attention_compute_s * (K + 1));
  verify.total_s += attention_s - verify.attention_s;
  verify.attention_s = attention_s;
  const StepCost draft_step = step_cost(draft, dplan, {micro, context, 0, 0});
  s.decode_step_s = plain.total_s;
  s.verify_step_s = verify.total_s;
  s.draft_step_s = draft_step.total_s;
  s.draft_prefill_s = step_cost(draft, dplan, {0, 0, static_cast<double>(plan.input_len),
                                               static_cast<double>(plan.input_len)}).total_s;

  // TPOT: the speculative step's time per kept token, plus the share of prompt work the plain
  // plan's TPOT carries beyond its pure decode step (chunked/mixed prefill: unchanged by drafting).
  s.base_tpot_s = p.tpot_s;
  const double prompt_share_s = std::max(0.0, p.tpot_s - plain.total_s);
  s.tpot_s = (K * s.draft_step_s + s.verify_step_s) / s.expected_tokens + prompt_share_s;
  s.speedup = s.base_tpot_s / s.tpot_s;

  // A request's life: its first token from the prefill (the draft prefills the prompt too),
  // the other O − 1 from speculative steps. Throughput follows from the running batch over
  // that life; the closed loop's queue (Little's law, as batching.cpp) follows the new rate.
  const double out = static_cast<double>(plan.output_len);
  const double service0_s = p.ttft_s - p.queue_s;
  const double life0_s = request_life_s(p, plan);
  const double life_s = life0_s + s.draft_prefill_s - std::max(0.0, out - 1) * (p.tpot_s - s.tpot_s);
  const double rate = p.running / life_s;
  const double queue_s = p.in_flight > p.running ? (p.in_flight - p.running) / rate : 0;
  s.ttft_s = queue_s + service0_s + s.draft_prefill_s;
  s.output_tokens_per_s = p.running * out / life_s * plan.replicas;
  s.output_tokens_per_s_per_gpu = s.output_tokens_per_s / plan.gpus();
  s.requests_per_s = rate * plan.replicas;
  s.feasible = true;
  return s;
}

}  // namespace gpuplan
