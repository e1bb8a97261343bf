#include "infer/step.h"

#include <algorithm>
#include <cmath>

#include "cost/grouped_gemm.h"
#include "infer/attention_dp_spread.h"
#include "infer/decode_kv_rate.h"
#include "infer/moe_routing.h"
#include "infer/tp_collective_memo.h"
#include "workload/mamba.h"
#include "workload/ops.h"

namespace gpuplan {

Precision gemm_precision(const Gpu& gpu, Precision weights) {
  const Precision wide = gpu.dense(Precision::bf16) > 0 ? Precision::bf16 : Precision::fp16;
  const auto has = [&](Precision p) { return gpu.dense(p) > 0; };
  switch (weights) {
    case Precision::fp8: return has(Precision::fp8) ? Precision::fp8 : wide;
    case Precision::int8: return has(Precision::int8) ? Precision::int8 : wide;
    // Without FP4/FP6 tensor cores the engines run such checkpoints weight-only, dequantised to
    // 16 bits inside the GEMM (W4A16): TensorRT-LLM's Triton MoE backend on Hopper (BF16
    // activations × MXFP4 weights, its GPT-OSS deployment guide's MoE backend matrix), vLLM's
    // Marlin FP4 kernels on Hopper and Ampere.
    case Precision::fp6:
    case Precision::fp4: return has(weights) ? weights : wide;
    case Precision::fp16: return has(Precision::fp16) ? Precision::fp16 : wide;
    default: return wide;  // bf16, and INT4 weight-only kernels (W4A16)
  }
}

bool experts_widen_fp4(const LinearWeightFormat& wf, Precision weights) {
  return (weights == Precision::fp4 || weights == Precision::fp6) && precision_bytes(wf.expert_gemm) >= 2;
}

bool runs_fp8_block_scales(const ModelSpec& m, Precision weights) {
  return weights == Precision::fp8 && m.checkpoint_quant == "fp8";
}

LinearWeightFormat linear_weight_format(const ModelSpec& m, const Gpu& gpu, Precision weights) {
  LinearWeightFormat f;
  f.expert_bytes = f.nonexpert_bytes = quantised_weight_bytes(weights);
  f.expert_gemm = f.nonexpert_gemm = gemm_precision(gpu, weights);
  if (weights != Precision::fp4 || m.checkpoint_quant != "mxfp4") return f;
  // The published MXFP4 checkpoint as the engines run it: experts in MXFP4 (one E8M0 scale per
  // 32 values); on FP4 tensor cores with MXFP8 activations, i.e. at the FP8 rate (TensorRT-LLM
  // GPT-OSS deployment guide, MoE backend support matrix: B200/GB200 activation MXFP8, MoE
  // weights MXFP4; H200 activation BF16, MXFP4, TRITON).
  f.expert_bytes = kMxfp4BytesPerWeight;
  if (gpu.dense(Precision::fp4) > 0 && gpu.dense(Precision::fp8) > 0) f.expert_gemm = Precision::fp8;
  if (m.checkpoint_attention_16bit) {
    f.nonexpert_bytes = precision_bytes(Precision::bf16);
    f.nonexpert_gemm = gemm_precision(gpu, Precision::bf16);
  }
  return f;
}

Precision attention_math_precision(const Gpu& gpu, const LinearWeightFormat& wf, Precision kv) {
  const Precision wide = gpu.dense(Precision::bf16) > 0 ? Precision::bf16 : Precision::fp16;
  if (kv != Precision::fp8 || gpu.dense(Precision::fp8) <= 0) return wide;
  // The attention projections' GEMM precision says whether the layer is FP8/FP4-quantised
  // (TensorRT-LLM's has_fp8_qdq / has_nvfp4 / has_fp8_block_wise; INT8 and weight-only layers
  // are not, and their GEMMs run at int8 or 16 bits).
  const Precision proj = wf.nonexpert_gemm;
  return proj == Precision::fp8 || proj == Precision::fp4 ? Precision::fp8 : wide;
}

namespace {

double tp_collective_uncached_s(const InferContext& ctx, CollectiveOp op, double bytes, int gpus) {
  const Engine& e = *ctx.engine;
  if (ctx.topology) {
    const CollectiveTopology& topo = *ctx.topology;
    CollectiveRequest req;
    req.op = op;
    req.bytes = bytes;
    req.gpus_per_domain = std::min(gpus, topo.domain_gpus);
    req.domains = (gpus + req.gpus_per_domain - 1) / req.gpus_per_domain;
    const CollectiveTime est = estimate_collective_time(req, topo);
    double t = est.feasible ? est.time_s : 0;
    // Engines' custom AllReduce inside an NVLink domain (TensorRT-LLM, vLLM). One-shot: every
    // rank reads the whole buffer of each of the n−1 others and reduces locally, (n−1)·bytes in
    // per GPU after one barrier. Two-shot: a reduce-scatter then an all-gather through the
    // peers' buffers, 2(n−1)/n·bytes in per GPU after two barriers. The engine takes the
    // cheaper, and NCCL where that is cheaper still (large messages).
    if (op == CollectiveOp::all_reduce && e.allreduce_latency_s > 0 && req.domains == 1 &&
        topo.scaleup != ScaleupKind::pcie && topo.levels[0].bw_bytes_per_s > 0) {
      const double n = gpus;
      const double link = topo.levels[0].bw_bytes_per_s;
      const double one_shot = e.allreduce_latency_s + bytes * (n - 1) / link;
      const double two_shot = 2 * e.allreduce_latency_s + bytes * 2 * (n - 1) / n / link;
      const double custom = std::min(one_shot, two_shot);
      if (e.allreduce_custom_max_bytes > 0) {
        // The engine's own rule (vLLM custom_all_reduce.cuh, custom_all_reduce.py): one-shot on 2
        // GPUs and below a size threshold, two-shot above it, NCCL from max_size on or beyond the
        // GPU counts its kernel supports, whichever of them is faster.
        if (bytes < e.allreduce_custom_max_bytes && gpus <= e.allreduce_custom_max_gpus) {
          const double one_max = gpus <= 4 ? e.allreduce_one_shot_max_bytes_4gpu : e.allreduce_one_shot_max_bytes_8gpu;
          t = gpus == 2 || bytes < one_max ? one_shot : two_shot;
        }
      } else {
        t = est.feasible ? std::min(t, custom) : custom;
      }
    }
    if (est.feasible || t > 0) return t;
  }
  // No system in the catalog (PCIe cards such as the L40S): a ring over PCIe through the host,
  // 2(n−1)/n of the buffer each way (AllReduce) at the slot's rate, plus a fixed cost per hop
  // (both from data/fitted/collectives/nccl.toml [host_pcie_ring]).
  const double n = gpus;
  const double factor = op == CollectiveOp::all_reduce ? 2 * (n - 1) / n : (n - 1) / n;
  const double hops = op == CollectiveOp::all_reduce ? 2 * (n - 1) : (n - 1);
  return factor * bytes / ctx.pcie_bw_bytes_per_s + hops * ctx.pcie_hop_s;
}

}  // namespace

double tp_collective_s(const InferContext& ctx, CollectiveOp op, double bytes, int gpus) {
  if (gpus <= 1 || bytes <= 0) return 0;
  TpCollectiveMemo* memo = ctx.collective_memo;
  if (memo == nullptr || memo->owner() != &ctx) return tp_collective_uncached_s(ctx, op, bytes, gpus);
  const int key = static_cast<int>(op);
  if (const double* hit = memo->find(key, bytes, gpus)) return *hit;
  const double t = tp_collective_uncached_s(ctx, op, bytes, gpus);
  memo->store(key, bytes, gpus, t);
  return t;
}

double expert_hit_fraction(const InferContext& ctx, double tokens) {
  const InferWeights& w = ctx.weights;
  if (w.moe_layers == 0 || w.experts <= 0 || tokens <= 0) return 0;
  return 1 - std::pow(1 - w.top_k / w.experts, tokens);
}

double expert_hit_of_calendar(const InferContext& ctx, double decodes, double heavy_tokens, double heavy_steps,
                              double steps) {
  if (steps <= 0) return 0;
  const double heavy = std::min(heavy_steps, steps);
  return (heavy * expert_hit_fraction(ctx, decodes + heavy_tokens) +
          (steps - heavy) * expert_hit_fraction(ctx, decodes)) / steps;
}

namespace {

// One rank's routed-expert GEMM widths: each expert's FFN split tp / ep ways (experts inside the
// TP group), the up GEMM (gate + up for SwiGLU) twice that; down runs N = hidden, K = ffn.
struct ExpertGemmWidths {
  double ffn = 0;
  double up_n = 0;
};
ExpertGemmWidths expert_gemm_widths(const ModelSpec& m, const InferPlan& plan) {
  ExpertGemmWidths w;
  w.ffn = static_cast<double>(m.moe.expert_ffn_hidden) * plan.ep / plan.tp;
  w.up_n = (m.mlp == MlpKind::swiglu ? 2 : 1) * w.ffn;
  return w;
}

// `touched`: the share of routed experts the step's tokens reach; < 0 = from the tokens (uniform
// top-k routing). A steady state that spreads prompt tokens over its steps passes its calendar's
// mean share (StepLoad::expert_hit), as the expert weight bytes do, so the spread prompt tokens
// do not make every expert pad in its decode steps.
double grouped_gemm_efficiency_of(const InferContext& ctx, const InferPlan& plan, double tokens, double touched_share) {
  const ModelSpec& m = *ctx.model;
  const InferWeights& w = ctx.weights;
  if (!ctx.roofline || w.moe_layers == 0 || w.experts <= 0 || tokens <= 0) return 1;
  // Grouped GEMM over the experts of one rank: each expert multiplies only the tokens routed to
  // it (uniform top-k routing: tokens·k/E), so its output tiles are mostly empty when that count
  // is below the tile height. Compared with one dense GEMM over all the step's tokens, which the
  // engine's gemm_fraction describes. Up (gate+up, N = 2·ffn/tp) then down (N = hidden, K = ffn/tp).
  // Only the experts some token was routed to launch tiles (a grouped GEMM's problem with M = 0
  // has none), each with the mean count of its tokens: a decode of a few tokens pads the tiles of
  // the experts it touches, not those of every expert.
  const double touched = std::max(touched_share >= 0 ? touched_share : expert_hit_fraction(ctx, tokens), 1e-12);
  const double local_experts = w.experts / plan.ep * touched;
  const double per_expert = tokens * w.top_k / (w.experts * touched);
  const ExpertGemmWidths widths = expert_gemm_widths(m, plan);
  const double ffn = widths.ffn;
  const double hidden = static_cast<double>(m.hidden);
  const double up_n = widths.up_n;
  const RooflineDevice& dev = *ctx.roofline;
  const auto ratio = [&](double n, double k) {
    const double dense = gemm_shape_efficiency(dev, tokens * w.top_k, n, k, 1);
    return dense > 0 ? std::min(1.0, gemm_shape_efficiency(dev, per_expert, n, k, local_experts) / dense) : 1;
  };
  const double up_flops = up_n * hidden;
  const double down_flops = hidden * ffn;
  // Time-weighted: total time / time at the dense rate.
  const double slow = up_flops / ratio(up_n, hidden) + down_flops / ratio(hidden, ffn);
  return std::min(1.0, (up_flops + down_flops) / slow);
}

// The grouped expert GEMMs' measured costs (cost/grouped_gemm.h), per MoE layer of the stage:
// the tile waves of the up (gate+up) and down GEMMs over the experts this GPU's tokens reach,
// and the experts' weights at the SMs' pull where that is below the weight-streaming rate.
// `layer_share`: the stage's share of the MoE layers (1 / pp) — the expert weight bytes carry
// it already.
void add_grouped_gemm_terms(const InferContext& ctx, const InferPlan& plan, double tokens, double layer_share,
                            double weight_bw, MoeStepTerms& moe) {
  const InferWeights& w = ctx.weights;
  if (!ctx.roofline || w.moe_layers == 0 || w.experts <= 0 || tokens <= 0 || moe.experts_touched <= 0) return;
  const ModelSpec& m = *ctx.model;
  const RooflineDevice& dev = *ctx.roofline;
  const double local_experts = w.experts / plan.ep * moe.experts_touched;
  const double rows = moe.tokens_per_expert / moe.experts_touched;
  const double up_n = expert_gemm_widths(m, plan).up_n;
  const double per_layer = grouped_gemm_tile_overhead_s(dev, local_experts, rows, up_n) +
                           grouped_gemm_tile_overhead_s(dev, local_experts, rows, static_cast<double>(m.hidden));
  moe.grouped_tile_s = per_layer * static_cast<double>(w.moe_layers) * layer_share;
  const double stream_bw = grouped_gemm_stream_bytes_per_s(dev, weight_bw);
  moe.grouped_stream_s = stream_bw < weight_bw ? moe.expert_weight_bytes * (1 / stream_bw - 1 / weight_bw) : 0;
}

}  // namespace

double expert_gemm_efficiency(const InferContext& ctx, const InferPlan& plan, double tokens) {
  return grouped_gemm_efficiency_of(ctx, plan, tokens, -1);
}

StepLoad slowest_attention_dp_rank(const StepLoad& load, int attention_dp) {
  if (attention_dp <= 1) return load;
  // Requests are whole: a scheduler that balances request counts gives the busiest rank
  // ⌈n / dp⌉ of n decodes, and a prompt (or its chunk) is prefilled on one rank, so the busiest
  // rank carries whole prompts, ⌈prompts / dp⌉ of them, never more than the step has. Every rank
  // waits for it at the first MoE layer (the dispatch all-to-all is a barrier).
  const double dp = attention_dp;
  StepLoad r = load;
  r.decode_seqs = load.decode_seqs > 0 ? std::ceil(load.decode_seqs / dp - 1e-9) : 0;
  if (load.prefill_tokens > 0) {
    const double span = std::max(1.0, load.prefill_span);
    const double prompts = load.prefill_tokens / span;
    // A steady state's mean step: the prompts land on the ranks unco-ordinated, each rank's count
    // Poisson with mean prompts / dp, and the step waits for the rank with the most.
    r.prefill_tokens = load.spread_prompts
                           ? std::max(load.prefill_tokens / dp, span * busiest_rank_spread_prompts(prompts, attention_dp))
                           : std::max(load.prefill_tokens / dp,
                                      std::min(load.prefill_tokens, std::ceil(prompts / dp - 1e-9) * span));
  }
  return r;
}

StepCost step_cost(const InferContext& ctx, const InferPlan& plan, const StepLoad& load) {
  const ModelSpec& m = *ctx.model;
  const Gpu& gpu = *ctx.gpu;
  const Engine& e = *ctx.engine;
  const InferWeights& w = ctx.weights;
  const double tp = plan.tp;
  const double pp = plan.pp;
  const double stage_share = 1.0 / pp;  // layers of this stage / all layers
  const double wide = precision_bytes(Precision::bf16);
  StepCost c;

  const double tokens = load.decode_seqs + load.prefill_tokens;
  const double bw = gpu.memory_bw_bytes_per_s * e.bw_fraction * ctx.calibration_bw_scale;
  const LinearWeightFormat wf = linear_weight_format(m, gpu, plan.weights);
  const auto rate_of = [&](Precision p) {
    return gpu.dense(p) * ctx.gemm_fraction * ctx.calibration_gemm_scale[index_of(p)] * ctx.serving_gemm_scale[index_of(p)];
  };
  const double gemm_rate = rate_of(wf.nonexpert_gemm);
  const double expert_rate = rate_of(wf.expert_gemm);
  // The output head multiplies with the other non-expert layers: 16-bit for the published MXFP4
  // checkpoint (its modules_to_not_convert lists lm_head with the attention), at the weights'
  // precision otherwise, as the fitted serving factors assume (docs/model/moe-serving.md, "The
  // output head": a 16-bit head everywhere was tried and not adopted).
  const double head_rate = gemm_rate;
  // Weights stream at the architecture's rate for their precision (FP4 dequantising kernels
  // reach a smaller share of HBM bandwidth than FP8 ones at small batch).
  const double weight_bw = bw * ctx.serving_bw_scale[index_of(plan.weights)];
  c.attention_precision = attention_math_precision(gpu, wf, plan.kv);
  const double attn_rate = gpu.dense(c.attention_precision) * ctx.gemm_fraction * ctx.calibration_attention_scale;

  // Linear layers. Every weight is read once per step, whatever the batch (Pope et al. 2022,
  // "Efficiently Scaling Transformer Inference" §2); MoE layers read only the experts some
  // token of the step was routed to: with uniform top-k routing an expert is idle with
  // probability (1 − k/E)^tokens.
  const double expert_hit = load.expert_hit >= 0 ? load.expert_hit : expert_hit_fraction(ctx, tokens);
  const double logit_rows = load.decode_seqs + (load.prefill_span > 0 ? load.prefill_tokens / load.prefill_span : 0);
  c.weight_bytes = (w.layer_matmul * wf.nonexpert_bytes + w.routed_experts * expert_hit * wf.expert_bytes +
                    w.layer_other * wide) * stage_share / tp +
                   (logit_rows > 0 ? w.output_head * wide / tp * stage_share : 0);
  c.linear_flops = (2 * tokens * (ctx.params.matmul_active - ctx.params.output_head) * stage_share +
                    2 * logit_rows * w.output_head * stage_share) / tp;
  double head_flops = 2 * logit_rows * w.output_head * stage_share / tp;
  // Attention DP: the busiest rank's tokens (r) through the non-expert weights, split
  // tp / attention_dp ways and so read whole by each rank's GPUs; the routed experts as above.
  const int adp = plan.attention_dp;
  const double atp = plan.attention_tp();
  const StepLoad r = slowest_attention_dp_rank(load, adp);
  const double r_tokens = r.decode_seqs + r.prefill_tokens;
  c.adp_busiest_prefill_tokens = r.prefill_tokens;
  c.adp_mean_prefill_tokens = load.prefill_tokens / std::max(1, adp);
  if (adp > 1) {
    const double routed_active = w.experts > 0 ? w.routed_experts * (w.top_k / w.experts) : 0;
    const double r_logit_rows = r.decode_seqs + (r.prefill_span > 0 ? r.prefill_tokens / r.prefill_span : 0);
    c.weight_bytes = (w.layer_matmul * wf.nonexpert_bytes + w.layer_other * wide) * stage_share / atp +
                     w.routed_experts * expert_hit * wf.expert_bytes * stage_share / tp +
                     (r_logit_rows > 0 ? w.output_head * wide / atp * stage_share : 0);
    c.linear_flops = (2 * r_tokens * (ctx.params.matmul_active - ctx.params.output_head - routed_active) * stage_share +
                      2 * r_logit_rows * w.output_head * stage_share) / atp +
                     2 * tokens * routed_active * stage_share / tp;
    head_flops = 2 * r_logit_rows * w.output_head * stage_share / atp;
  }
  c.linear_mem_s = c.weight_bytes / weight_bw;
  // The GEMM groups at their own precisions: the routed experts, and the rest (attention
  // projections, dense MLPs, shared experts, the output head, whose share is named).
  const double routed_flops = w.moe_layers > 0 && w.experts > 0
                                  ? 2 * tokens * w.routed_experts * (w.top_k / w.experts) * stage_share / tp
                                  : 0;
  c.output_head_s = head_rate > 0 ? head_flops / head_rate : 0;
  c.moe.expert_gemm_precision = wf.expert_gemm;
  c.moe.expert_compute_s = routed_flops > 0 ? routed_flops / expert_rate : 0;
  c.linear_compute_s = std::max(0.0, c.linear_flops - head_flops - routed_flops) / gemm_rate + c.output_head_s +
                       c.moe.expert_compute_s;
  if (runs_fp8_block_scales(m, plan.weights) && wf.nonexpert_gemm == Precision::fp8) {
    // FP8 block scales on a GPU whose MMAs take none (Hopper): the engines' block-scaled kernels
    // (TensorRT-LLM's DeepGEMM-style FP8 block-scale GEMMs and MoE on sm_90; DeepSeek-V3 report
    // arXiv:2412.19437 §3.3.2: each 128-deep partial sum promoted to fp32 on the CUDA cores with
    // its scales) run at the measured fraction of the per-tensor FP8 rate the engine's
    // GEMM fraction describes; on the GEMMs the checkpoint block-scales: all but the output head
    // (not quantised in DeepSeek's checkpoint), the routed experts on their rows.
    // The fraction is the GPU family's measured `[gemm.block_scale]` (Hopper 0.877); families whose
    // MMAs take the scales (Blackwell's block-scaled tcgen05 MMAs) have none: 1, no term.
    c.fp8_block_scale_rate_fraction = ctx.roofline ? ctx.roofline->fp8_block_scale_rate_fraction : 1;
    const double scaled_s = std::max(0.0, c.linear_flops - head_flops - routed_flops) / gemm_rate + c.moe.expert_compute_s;
    c.fp8_block_scale_s = scaled_s * (1 / c.fp8_block_scale_rate_fraction - 1);
    c.linear_compute_s += c.fp8_block_scale_s;
  }
  if (w.moe_layers > 0 && w.experts > 0 && tokens > 0) {
    // docs/model/moe-serving.md. Only the experts some token was routed to are read; the
    // routed-expert FLOPs run at the grouped-GEMM efficiency of their per-expert M; with the
    // experts spread over EP ranks the busiest rank carries `router_imbalance` times the mean
    // and every rank waits for it at the combine.
    MoeStepTerms& moe = c.moe;
    moe.router_imbalance = plan.ep > 1 ? ctx.router_imbalance : 1;
    moe.tokens_per_expert = tokens * w.top_k * moe.router_imbalance / w.experts;
    moe.experts_touched = expert_hit;
    moe.expert_weight_bytes = w.routed_experts * expert_hit * wf.expert_bytes * stage_share / tp;
    moe.expert_weight_s = moe.expert_weight_bytes / weight_bw;
    moe.grouped_gemm_efficiency = grouped_gemm_efficiency_of(ctx, plan, tokens, load.expert_hit);
    moe.expert_padding_s = moe.expert_compute_s * (1 / moe.grouped_gemm_efficiency - 1);
    // FP4/FP6 experts on a GPU without those tensor cores: the kernel unpacks, scales and widens
    // every weight tile to 16 bits in registers before the 16-bit MMA (triton_kernels'
    // matmul_ogs on Hopper; Triton's dot_scaled lowering on sm_90), and on full tiles that work
    // holds the SM as long as the MMAs do: the measured rate is a fraction of the 16-bit one.
    // Charged on the routed rows: the kernels size their row tiles to the rows per expert
    // (16 and up), so part-empty 128-row tiles (the padding above) do not widen 128 rows' worth.
    moe.upcast_rate_fraction = experts_widen_fp4(wf, plan.weights) && ctx.roofline ? ctx.roofline->fp4_upcast_rate_fraction : 1;
    moe.upcast_s = moe.expert_compute_s * (1 / moe.upcast_rate_fraction - 1);
    moe.imbalance_s = (moe.expert_compute_s / moe.grouped_gemm_efficiency + moe.upcast_s) * (moe.router_imbalance - 1);
    c.linear_compute_s += moe.expert_padding_s + moe.upcast_s + moe.imbalance_s;
    // Only where the engine runs the kernels the measurement timed: CUTLASS grouped GEMMs with
    // the experts multiplying in their own precision (a weight-only 4-bit checkpoint on a GPU
    // without FP4 tensor cores runs dequantising kernels instead).
    // Nor a native FP8 checkpoint (quantization_config quant_method "fp8": DeepSeek-V3/R1's
    // 128 × 128 block scales), which TensorRT-LLM multiplies in its block-scaled FP8 kernels on
    // Hopper, not the per-tensor grouped kernels timed; its H200 DEP8 recipe (1,436 tok/s per GPU,
    // tests/golden/infer/dep8_deepseek_h200.case) is met without the term and missed by 9% with it.
    const bool weight_only = wf.expert_bytes < precision_bytes(wf.expert_gemm);
    const bool block_scaled_fp8 = runs_fp8_block_scales(m, plan.weights);
    if (e.moe_cutlass_grouped && !weight_only && !block_scaled_fp8) {
      add_grouped_gemm_terms(ctx, plan, tokens, stage_share, weight_bw, moe);
    }
    c.linear_mem_s += moe.grouped_stream_s;
  }
  // The ideal roofline is max(memory, compute); real GEMM kernels near the ridge point overlap
  // the two imperfectly, which the engine's roofline_norm describes (cost/roofline.h).
  c.linear_s = roofline_time_s(c.linear_mem_s, c.linear_compute_s, e.roofline_norm) + c.moe.grouped_tile_s;

  // Attention. Decodes stream their cached keys and values; prefill tokens attend causally
  // within their prompt (FlashAttention: compute-bound) and write their KV.
  const double per_key = ctx.attention_flops_per_key_layer;
  // MLA: decodes attend over the latent with the up-projections absorbed (infer/mla_decode.h).
  const double decode_per_key =
      ctx.decode_attention_flops_per_key_layer > 0 ? ctx.decode_attention_flops_per_key_layer : per_key;
  const double full = static_cast<double>(ctx.kv.full_layers);
  const double sliding = static_cast<double>(ctx.kv.sliding_layers);
  const double window = static_cast<double>(ctx.kv.window);
  const double ctx_len = std::max(1.0, load.decode_context);
  const double decode_keys = full * ctx_len + sliding * kv_tokens_sliding(ctx.kv, ctx_len);
  const double span = std::max(1.0, load.prefill_span);
  const double prefill_keys = full * causal_keys_per_query(span, 0) + sliding * causal_keys_per_query(span, window, ctx.kv.chunked);
  // Attention DP: each GPU attends for its rank's sequences only (r = load without attention DP),
  // its KV split over the rank's tp / attention_dp GPUs.
  const int kv_tp = plan.attention_tp();
  const double decode_attn_flops = r.decode_seqs * decode_per_key * decode_keys * stage_share / atp;
  const double prefill_attn_flops = r.prefill_tokens * per_key * prefill_keys * stage_share / atp;
  c.attention_flops = decode_attn_flops + prefill_attn_flops;
  const double decode_kv_bytes = r.decode_seqs * kv_bytes_per_seq_per_gpu(ctx.kv, ctx_len, plan.kv, kv_tp, plan.pp);
  c.kv_bytes = decode_kv_bytes + r.prefill_tokens * kv_bytes_per_seq_per_gpu(ctx.kv, 1, plan.kv, kv_tp, plan.pp);
  if (ctx.kv.mamba_layers > 0) {
    // Mamba layers: every decode step reads and writes each sequence's fixed recurrent state,
    // and the fused scan streams its inputs and output once per token, prompt or generated
    // (memory-bound, workload/mamba.h).
    const double scan_bytes = static_cast<double>(ctx.kv.mamba_layers) *
                              mamba_scan_bytes_per_token(m.mamba, wide) * stage_share / tp;
    c.kv_bytes += r.decode_seqs * 2 * recurrent_state_bytes_per_seq_per_gpu(ctx.kv, kv_tp, plan.pp) +
                  r_tokens * scan_bytes * (tp / atp);
  }
  // A decode kernel's per-key work (the query group's scores, exponentials and online-softmax
  // rescale) does not shrink with the head dim: under 128 it reads its cache slower per byte than
  // the step's bandwidth, set on head dim 128 (infer/decode_kv_rate.h; our FlashAttention-2
  // decode measurement on one H200, head dim 64 at 0.869 of 128's rate).
  c.kv_head_dim_factor = decode_kv_time_factor(static_cast<int>(m.head_dim), ctx.kv.mla);
  c.kv_head_dim_s = decode_kv_bytes / bw * (c.kv_head_dim_factor - 1.0);
  c.kv_mem_s = c.kv_bytes / bw + c.kv_head_dim_s;
  c.attention_compute_s = c.attention_flops / attn_rate;
  if (m.mla && r.decode_seqs > 0) {
    c.mla_decode_flops_per_key_layer = decode_per_key;
    c.mla_decode_absorbed_s = (decode_per_key - per_key) * r.decode_seqs * decode_keys * stage_share / atp / attn_rate;
  }
  c.attention_s = roofline_time_s(c.kv_mem_s, decode_attn_flops / attn_rate) + prefill_attn_flops / attn_rate;

  // Elementwise passes outside the GEMMs, streamed from HBM once per step for every token
  // (docs/model/inference.md §4). Under TP every rank holds the whole hidden state of every
  // token, so the two residual-add + RMSNorm kernels per layer (engines fuse each pair: read
  // x and the residual, write both) are replicated on each rank, not split: 2 × 4 × hidden.
  // The gated activation (read gate and up, write the product: 3 × ffn) and RoPE (read and
  // write q and k) touch only the rank's slice. MoE layers also permute each token to its
  // top-k experts and back (dispatch reads 1 and writes k copies, combine the reverse), again
  // on every TP rank. These costs do not shrink with TP, which is why per-GPU throughput
  // falls as TP grows even where the AllReduce is cheap.
  if (tokens > 0) {
    const double h = static_cast<double>(m.hidden);
    const double gate = m.mlp == MlpKind::swiglu ? 3 : 2;  // SwiGLU reads gate and up; GeLU reads one
    const double rope = m.position == PositionKind::rope
                            ? 2 * static_cast<double>((m.heads + m.kv_heads) * m.head_dim) * m.rotary_fraction / tp
                            : 0;
    const double dense_layers = static_cast<double>(m.layers - w.moe_layers);
    // Routed experts' width times top-k, plus the shared block (its own width in Qwen2-MoE).
    const double moe_ffn = w.top_k * static_cast<double>(m.moe.expert_ffn_hidden) +
                           static_cast<double>(m.moe.shared_ffn());
    // The permutes: a token read once and written k times on dispatch, the reverse on combine.
    const double permute_per_token = static_cast<double>(w.moe_layers) * (2 + 2 * w.top_k) * h;
    const double per_token = static_cast<double>(m.layers) * (8 * h + rope) +
                             dense_layers * gate * static_cast<double>(m.ffn_hidden) / tp +
                             static_cast<double>(w.moe_layers) * gate * moe_ffn / tp + permute_per_token;
    c.elementwise_bytes = tokens * per_token * wide * stage_share;
    c.moe.permute_bytes = tokens * permute_per_token * wide * stage_share;
    if (adp > 1) {
      // Attention DP: the replicated passes and the dense layers' slices for the busiest rank's
      // tokens at the attention TP; the routed experts' activation over all tp GPUs.
      const double shared = static_cast<double>(m.moe.shared_ffn());
      const double routed = w.top_k * static_cast<double>(m.moe.expert_ffn_hidden);
      const double rope_atp = rope * tp / atp;
      const double rank_per_token = static_cast<double>(m.layers) * (8 * h + rope_atp) +
                                    dense_layers * gate * static_cast<double>(m.ffn_hidden) / atp +
                                    static_cast<double>(w.moe_layers) * gate * shared / atp + permute_per_token;
      c.elementwise_bytes = (r_tokens * rank_per_token + tokens * static_cast<double>(w.moe_layers) * gate * routed / tp) *
                            wide * stage_share;
      c.moe.permute_bytes = r_tokens * permute_per_token * wide * stage_share;
    }
    c.elementwise_s = c.elementwise_bytes / bw;
    c.moe.permute_s = c.moe.permute_bytes / bw;
    if (w.moe_layers > 0 && w.experts > 0 && !e.moe_routing_kernels.empty()) {
      // The MoE layer's kernels besides its GEMMs, each at least the kernel floor
      // (docs/model/moe-serving.md, "Routing kernels"): every TP rank routes and permutes all the
      // step's tokens (its attention rank's under attention DP), as the permute bytes above.
      MoeRoutingLayer layer;
      layer.routed_tokens = adp > 1 ? r_tokens : tokens;
      layer.experts = w.experts;
      layer.top_k = w.top_k;
      layer.hidden = h;
      layer.activation_bytes = tokens * gate * w.top_k * static_cast<double>(m.moe.expert_ffn_hidden) / tp * wide;
      layer.bytes_per_elem = wide;
      c.moe.routing_kernels = static_cast<double>(e.moe_routing_kernels.size());
      c.moe.routing_kernels_s = static_cast<double>(w.moe_layers) * stage_share *
                                moe_routing_kernels_s(e.moe_routing_kernels, e.moe_kernel_floor_s, bw, layer);
      c.elementwise_s += c.moe.routing_kernels_s;
    }
  }

  // Communication: Megatron TP runs two AllReduces of the activations per layer (after
  // attention and after the MLP; Shoeybi et al. 2019 §3; one for a parallel block or a hybrid's
  // single-mixer or MLP-only layer: workload/tp_reductions.h); with EP the MoE layers instead
  // send each token to its top-k experts and back (two AllToAlls). PP sends the activations on.
  const double layers = static_cast<double>(m.layers) * stage_share;
  const double moe_layers = static_cast<double>(w.moe_layers) * stage_share;
  const double act_bytes = tokens * static_cast<double>(m.hidden) * wide;
  if (tokens > 0 && plan.tp > 1 && plan.attention_dp <= 1) {
    const double ar = tp_collective_s(ctx, CollectiveOp::all_reduce, act_bytes, plan.tp);
    if (plan.ep > 1 && moe_layers > 0) {
      // The busiest EP rank receives router_imbalance times the mean share of the tokens.
      const double a2a = tp_collective_s(ctx, CollectiveOp::all_to_all,
                                         act_bytes * w.top_k / plan.ep * c.moe.router_imbalance, plan.ep);
      c.moe.dispatch_combine_s = 2 * moe_layers * a2a;
      c.comm_s += w.tp_reductions_without_moe_ffn * stage_share * ar + c.moe.dispatch_combine_s;
    } else {
      c.comm_s += w.tp_reductions_all_experts * stage_share * ar;
    }
  }
  if (tokens > 0 && adp > 1) {
    // Attention DP (docs/model/attention-dp.md): the AllReduces run inside a rank's
    // tp / attention_dp GPUs on its own tokens; each MoE layer dispatches every token to the
    // GPUs of its experts and combines them back, an AllToAll over all tp GPUs. A token reaches at
    // most min(k, ep) expert groups of tp / ep GPUs each, so a GPU, holding 1 / (tp/attention_dp)
    // of its rank's tokens, sends r_tokens / atp · min(k, ep) · tp / ep token rows of hidden × 2 B.
    const double r_act = r_tokens * static_cast<double>(m.hidden) * wide;
    if (atp > 1) {
      const double ar = tp_collective_s(ctx, CollectiveOp::all_reduce, r_act, static_cast<int>(atp));
      c.comm_s += w.tp_reductions_without_moe_ffn * stage_share * ar;
    }
    if (moe_layers > 0) {
      const double ep = plan.ep;
      const double dispatch = r_act / atp * std::min(w.top_k, ep) * tp / ep * c.moe.router_imbalance;
      c.moe.dispatch_combine_s = 2 * moe_layers * tp_collective_s(ctx, CollectiveOp::all_to_all, dispatch, plan.tp);
      c.comm_s += c.moe.dispatch_combine_s;
    }
  }
  if (tokens > 0 && plan.pp > 1) {
    c.comm_s += tp_collective_s(ctx, CollectiveOp::send_recv, act_bytes, 2);
  }
  c.overhead_s = e.step_overhead_s + layers * e.layer_overhead_s;
  c.total_s = c.linear_s + c.attention_s + c.elementwise_s + c.comm_s + c.overhead_s;
  // The executor's host work per sequence, overlapped with the GPU (TensorRT-LLM's overlap
  // scheduler prepares step n+1 while step n runs): it shows only where it outlasts the GPU.
  const double gpu_s = c.total_s;
  c.host_s = step_host_s(e, plan, load);
  c.total_s = std::max(gpu_s, c.host_s);  // as the simulation's memo takes it (sim_engine.cpp)
  c.host_wait_s = c.total_s - gpu_s;
  return c;
}

double step_host_s(const Engine& e, const InferPlan& plan, const StepLoad& load) {
  if (e.host_per_seq_s <= 0) return 0;
  const StepLoad r = slowest_attention_dp_rank(load, plan.attention_dp);
  const double prompts = r.prefill_span > 0 ? r.prefill_tokens / r.prefill_span : 0;
  return e.host_per_seq_s * (r.decode_seqs + prompts);
}

}  // namespace gpuplan
