// Per-op shapes, FLOPs and bytes of a transformer layer on one GPU. Sources per formula in
// docs/model/training.md: GEMM FLOPs 2·M·N·K (backward 2×: dgrad + wgrad); causal attention
// counts (s+1)/2 keys per query; FlashAttention-2's backward runs 5 GEMMs to the forward's 2
// (Dao 2023), so 2.5× the forward FLOPs.
#include "workload/ops.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.h"
#include "workload/eager_elementwise.h"
#include "workload/mamba.h"
#include "workload/ops_mixer.h"
#include "workload/mtp_ops.h"
#include "workload/size_math.h"

namespace gpuplan {
namespace {

using size_math::d;

// FlashAttention-2 backward / forward FLOPs: 5 GEMMs (S, dP, dV, dQ, dK) against 2 (S, O).
constexpr double kFlashBwdOverFwd = 2.5;
// A memory-bound kernel's backward reads the output gradient and the saved input and writes
// the input gradient: about twice its forward traffic.
constexpr double kMemoryBwdOverFwd = 2.0;

struct Ctx {
  const ModelSpec& model;
  const OpShape& shape;
  LayerOps& out;
  double act_bytes;
  double gemm_in_bytes;
  double fp8_cast_bytes = 0;   // activations and output gradients quantised for fp8 GEMMs
  double nvfp4_rht_bytes = 0;  // their extra reads under NVFP4's Hadamard transforms (nvfp4_rht)

  // Bytes the cast of one element moves: one 16-bit read and each quantised copy written
  // (two where the scale blocks follow the reduction dimension; workload/scaling.h). Set once
  // per layer, not per GEMM; read only where the GEMMs run in low precision (gemm != act).
  double cast_bytes_per_element =
      shape.gemm != shape.act ? act_bytes + quantised_copies(shape.scaling) * gemm_in_bytes : 0;
  // NVFP4 with random Hadamard transforms (OpShape::nvfp4_rht): the amax pass and the separate
  // column-wise cast read each cast input twice more.
  double rht_bytes_per_element = shape.gemm != shape.act && shape.nvfp4_rht ? 2 * act_bytes : 0;
};

// gemm() and memory() always inline: a layer's builder calls them a dozen times, mostly with
// constant names, groups and counts, which then fold into its stores (out of line they were a
// call, a frame and the argument moves each: a Llama layer's 12 ops took 1,127 instructions to
// build, 994 inline).
[[gnu::always_inline]] inline void gemm(Ctx& c, const char* name, OpGroup group, double m, double n, double k,
                                        double count = 1, bool low_precision = true, double params_per_gemm = -1) {
  const bool lp = low_precision && c.shape.gemm != c.shape.act;
  const double in_bytes = lp ? c.gemm_in_bytes : c.act_bytes;
  const double fwd_flops = 2 * m * n * k * count;
  const double fwd_bytes = count * ((m * k + k * n) * in_bytes + m * n * c.act_bytes);
  c.out.add({.name = name,
             .kind = OpKind::gemm,
             .group = group,
             .m = m,
             .n = n,
             .k = k,
             .count = count,
             .low_precision = lp,
             .fwd_flops = fwd_flops,
             .bwd_flops = 2 * fwd_flops,
             .fwd_bytes = fwd_bytes,
             .bwd_bytes = 2 * fwd_bytes,
             .params = (params_per_gemm >= 0 ? params_per_gemm : n * k) * count});
  if (lp) {
    // Transformer Engine casts the input (fwd) and the output gradient (bwd).
    c.fp8_cast_bytes += count * (m * k + m * n) * c.cast_bytes_per_element;
    c.nvfp4_rht_bytes += count * (m * k + m * n) * c.rht_bytes_per_element;
  }
}

// A grouped GEMM of the local routed experts on the most loaded EP rank: `rows` per expert
// (imbalance included) set its time; its FLOPs are the mean rank's (rows / imbalance).
void routed_gemm(Ctx& c, const char* name, double rows, double n, double k, double experts, double imbalance) {
  gemm(c, name, OpGroup::moe, rows, n, k, experts);
  Op& op = c.out.ops[static_cast<std::size_t>(c.out.count - 1)];
  op.routed_expert = true;
  op.fwd_flops /= imbalance;
  op.bwd_flops /= imbalance;
}

[[gnu::always_inline]] inline void memory(Ctx& c, const char* name, OpGroup group, double fwd_bytes,
                                          double params = 0) {
  c.out.add({.name = name,
             .kind = OpKind::memory,
             .group = group,
             .fwd_bytes = fwd_bytes,
             .bwd_bytes = kMemoryBwdOverFwd * fwd_bytes,
             .params = params});
}

void mark_selective(Ctx& c) { c.out.ops[static_cast<std::size_t>(c.out.count - 1)].selective = true; }

// Attention as Megatron-LM 2021-22 and Megatron-DeepSpeed run it, kernel by kernel
// (megatron/model/transformer.py ParallelAttention.forward and megatron/fused_kernels/
// scaled_upper_triang_masked_softmax.h at NVIDIA/Megatron-LM v2.5, 2021-08-10): per local head
// and sequence, torch.baddbmm writes the s×s scores Q·Kᵀ (every key, the causal mask is applied
// after); FusedScaleMaskSoftmax's causal kernel reads each row's unmasked keys and writes the
// whole row of probabilities (zeros past the diagonal), in 16-bit with fp32 arithmetic in
// registers; torch.nn.Dropout reads them and writes the dropped copy and a one-byte mask;
// torch.bmm reads that copy against V. The backward runs each in reverse: bmm's two GEMMs
// (dP writes s×s, dV reads the dropped probabilities), dropout's (reads dP and the mask,
// writes s×s), the softmax's (reads the gradient's and the output's unmasked keys, writes
// s×s), baddbmm's two GEMMs (dQ and dK each read the s×s gradient). The two GEMMs are batched
// over sequences × heads, at the GEMM rate; the rest is HBM traffic. Under selective
// recompute all four are rerun (Korthikanti et al. 2022 sec. 4.2).
void materialized_attention(Ctx& c, double heads, double d_qk, double d_v) {
  const OpShape& s = c.shape;
  const double a = c.act_bytes;
  const double batch = s.micro_batch * heads;  // GEMMs of one batched kernel
  const double queries = s.seq_len / s.cp;
  const double keys = s.seq_len;
  const double scores = batch * queries * keys;  // elements of one s×s tensor
  // The share of a row the causal softmax reads: its unmasked keys, (s+1)/2 of s on average.
  const double unmasked = causal_keys_per_query(s.seq_len, 0) / keys;
  auto batched = [&](const char* name, double m, double n, double k) {
    gemm(c, name, OpGroup::attention, m, n, k, batch, false, 0);
    Op& op = c.out.ops[static_cast<std::size_t>(c.out.count - 1)];
    op.batched = true;
    op.selective = true;
  };
  batched("attn_scores", queries, keys, d_qk);  // Q·Kᵀ: writes the scores
  // Softmax: reads the unmasked scores, writes the row; backward reads the gradient's and the
  // output's unmasked keys and writes the row.
  memory(c, "attn_softmax", OpGroup::attention, scores * a * (unmasked + 1));
  c.out.ops[static_cast<std::size_t>(c.out.count - 1)].bwd_bytes = scores * a * (2 * unmasked + 1);
  mark_selective(c);
  if (s.attention_probs_dropout) {
    // Reads the probabilities, writes the dropped copy and the mask (one byte an element);
    // backward reads the gradient and the mask and writes the gradient.
    memory(c, "attn_dropout", OpGroup::attention, scores * (2 * a + 1));
    c.out.ops[static_cast<std::size_t>(c.out.count - 1)].bwd_bytes = scores * (2 * a + 1);
    mark_selective(c);
  }
  batched("attn_context", queries, d_v, keys);  // probabilities · V: reads the probabilities
}

// Fused attention over `heads` local heads with query/key width d_qk and value width d_v.
[[gnu::always_inline]] inline void attention(Ctx& c, double heads, double kv_heads, double d_qk, double d_v,
                                             double window) {
  const bool chunked = c.model.attention_chunked;
  const OpShape& s = c.shape;
  if (s.attention_materialized) {
    materialized_attention(c, heads, d_qk, d_v);
    return;
  }
  const double t = s.tokens();
  Op& op = c.out.add();
  op.name = "attention";
  op.kind = OpKind::attention;
  op.group = OpGroup::attention;
  op.selective = true;
  // QK^T and PV: 2·d_qk + 2·d_v FLOPs per (query, key, head). With context parallelism the
  // causal work is load-balanced (each rank holds two mirrored chunks), so each rank does 1/cp.
  const double keys = s.attention_mask_materialized ? s.seq_len : causal_keys_per_query(s.seq_len, window, chunked);
  op.masked = s.attention_mask_materialized;
  // The key span one kernel call sees (the rate's kv_half form, cost/roofline.cpp): with ring
  // context parallelism (Transformer Engine's default p2p CP, torchtitan's ring) each of the cp
  // steps runs the kernel on one chunk pair, so a call sees 1/cp of a query's keys (the rank's
  // two mirrored chunks of seq/(2cp) tokens; transformer_engine/pytorch/attention.py
  // AttnFuncWithCPAndKVP2P). The FLOPs stay the whole causal count over the rank's queries.
  op.m = keys / s.cp;
  op.n = heads;
  op.k = d_qk;
  op.fwd_flops = 2 * t * keys * heads * (d_qk + d_v);
  op.exps = t * keys * heads;
  op.bwd_flops = kFlashBwdOverFwd * op.fwd_flops;
  // Reads Q, K, V, writes O (K/V of the whole sequence pass through with ring attention).
  op.fwd_bytes = (t * heads * (d_qk + d_v) + s.micro_batch * s.seq_len * kv_heads * (d_qk + d_v)) * c.act_bytes;
  op.bwd_bytes = 2 * op.fwd_bytes;
}

// `rms`: an RMSNorm, which eager PyTorch runs as a chain of kernels (workload/eager_elementwise.h);
// a LayerNorm is one kernel either way. Inline, as gemm() and memory() are (and attention(),
// rope_op() and dense_mlp(), two call sites each).
[[gnu::always_inline]] inline void norm(Ctx& c, const char* name, double rows, double width, double params,
                                        bool rms = true) {
  const double per_element =
      rms ? eager_elementwise::rmsnorm_bytes(c.act_bytes, c.shape.eager_elementwise) : 2 * c.act_bytes;
  memory(c, name, OpGroup::norm, rows * width * per_element, params);
  c.out.ops[static_cast<std::size_t>(c.out.count - 1)].selective = true;
}

bool layer_norm_is_rms(const ModelSpec& m) { return m.norm == NormKind::rmsnorm; }

// RoPE over `width` elements per token (the rotated query and key columns). Where the
// framework's fused kernel cannot take the model's YaRN attention factor it is the
// framework's unfused chain instead, its own op in the breakdown (`rope_unfused`).
[[gnu::always_inline]] inline void rope_op(Ctx& c, double width) {
  const double elements = c.shape.tokens() * width;
  if (c.shape.rope_unfused && !c.shape.eager_elementwise) {
    memory(c, "rope_unfused", OpGroup::attention, elements * eager_elementwise::megatron_rope_fwd_bytes(c.act_bytes));
    Op& rope = c.out.ops[static_cast<std::size_t>(c.out.count - 1)];
    rope.bwd_bytes = elements * eager_elementwise::megatron_rope_bwd_bytes(c.act_bytes);
    // One kernel per PyTorch op, for q and for k (apply_rotary_pos_emb runs once on each).
    rope.kernels_fwd = 2 * eager_elementwise::kMegatronRopeFwdKernels;
    rope.kernels_bwd = 2 * eager_elementwise::kMegatronRopeBwdKernels;
    return;
  }
  memory(c, "rope", OpGroup::attention,
         elements * eager_elementwise::rope_bytes(c.act_bytes, c.shape.eager_elementwise));
}

// The activation of an MLP `width` wide over `rows`: SwiGLU reads gate and up and writes their
// product (a chain of two kernels eager); GeLU / ReLU² read and write once.
double mlp_activation_bytes(const Ctx& c, double rows, double width) {
  if (c.model.mlp == MlpKind::swiglu) {
    return rows * width * eager_elementwise::swiglu_bytes(c.act_bytes, c.shape.eager_elementwise);
  }
  return 2 * rows * width * c.act_bytes;
}

// The last `n` ops belong to Megatron-Core's recompute module(s) `modules` (RecomputeModule).
void mark_modules(Ctx& c, std::uint8_t modules, int n = 1) {
  for (int i = c.out.count - n; i < c.out.count; ++i) c.out.ops[static_cast<std::size_t>(i)].modules |= modules;
}

// The residual add closing a block: reads the stream and the block output, writes the sum;
// autograd saves nothing for it.
[[gnu::always_inline]] inline void residual_add(Ctx& c, const char* name, OpGroup group, double rows) {
  memory(c, name, group, 3 * rows * d(c.model.hidden) * c.act_bytes);
  c.out.ops[static_cast<std::size_t>(c.out.count - 1)].saves_for_backward = false;
}

void attention_block(Ctx& c, bool sliding) {
  const ModelSpec& m = c.model;
  const OpShape& s = c.shape;
  const double t = s.tokens();
  const double tp = s.tp;
  const double h = d(m.hidden);
  const double norm_rows = s.sp ? t / tp : t;
  const double window = sliding ? d(m.sliding_window) : 0;
  norm(c, "attn_norm", norm_rows, h, h, layer_norm_is_rms(m));
  mark_modules(c, kRecomputeLayernorm);
  if (m.mla) {
    const MlaShape& a = m.mla_shape;
    const double heads = d(m.heads) / tp;
    const double d_qk = d(a.qk_nope_head_dim + a.qk_rope_head_dim);
    const double d_v = d(a.v_head_dim);
    // The down-projections are replicated across TP ranks; the up-projections split by head.
    if (a.q_lora_rank > 0) {
      gemm(c, "q_down", OpGroup::attention, t, d(a.q_lora_rank), h);
      norm(c, "q_norm", t, d(a.q_lora_rank), d(a.q_lora_rank));
      gemm(c, "q_up", OpGroup::attention, t, heads * d_qk, d(a.q_lora_rank));
      mark_selective(c);
      mark_modules(c, kRecomputeMlaUpProj);
    } else {
      gemm(c, "q_proj", OpGroup::attention, t, heads * d_qk, h);
    }
    gemm(c, "kv_down", OpGroup::attention, t, d(a.kv_lora_rank + a.qk_rope_head_dim), h);
    norm(c, "kv_norm", t, d(a.kv_lora_rank), d(a.kv_lora_rank));
    gemm(c, "kv_up", OpGroup::attention, t, heads * (d(a.qk_nope_head_dim) + d_v), d(a.kv_lora_rank));
    mark_selective(c);
    rope_op(c, (heads + 1) * d(a.qk_rope_head_dim));
    mark_modules(c, kRecomputeMlaUpProj, 2);
    const int attention_first = c.out.count;
    attention(c, heads, heads, d_qk, d_v, window);
    mark_modules(c, kRecomputeCoreAttn, c.out.count - attention_first);
    gemm(c, "out_proj", OpGroup::attention, t, h, heads * d_v);
  } else {
    const double hd = d(m.head_dim);
    const double heads = d(m.heads) / tp;
    const double kv = std::max(1.0, d(m.kv_heads) / tp);  // KV heads replicate when tp > kv_heads
    const double n_qkv = (heads + 2 * kv) * hd;
    gemm(c, "qkv_proj", OpGroup::attention, t, n_qkv, h, 1, true, n_qkv * h + (m.qkv_bias ? n_qkv : 0));
    if (m.qk_norm) norm(c, "qk_norm", t, (heads + kv) * hd, 2 * hd);
    if (m.position == PositionKind::rope) {
      rope_op(c, (heads + kv) * hd);
    }
    const int attention_first = c.out.count;
    attention(c, heads, kv, hd, hd, window);
    mark_modules(c, kRecomputeCoreAttn, c.out.count - attention_first);
    gemm(c, "out_proj", OpGroup::attention, t, h, heads * hd, 1, true, heads * hd * h + (m.attn_out_bias ? h : 0));
  }
  residual_add(c, "attn_residual", OpGroup::attention, norm_rows);
}

// A Mamba mixer (workload/mamba.h), split tp ways by channel (Mamba-2: by head and group, as
// Megatron-Core's MambaMixer shards it): in_proj (column-parallel), the causal conv1d, Mamba-1's
// x_proj and dt_proj, the fused selective scan, Mamba-2's gated RMSNorm, out_proj
// (row-parallel). The conv and the scan are memory-bound kernels, costed by their HBM traffic
// (the scan's FLOPs are counted in the layer's FLOPs, not in its time): the states stay in
// SRAM and the backward recomputes them (Gu & Dao 2023 §3.3.2-3.3.3).
void mamba_block(Ctx& c) {
  const ModelSpec& m = c.model;
  const MambaShape& ms = m.mamba;
  const OpShape& s = c.shape;
  const double t = s.tokens();
  const double tp = s.tp;
  const double h = d(m.hidden);
  const double norm_rows = s.sp ? t / tp : t;
  const double di = d(ms.d_inner) / tp;
  const double in_width = mamba_in_proj_width(ms) / tp;
  const double conv = mamba_conv_channels(ms) / tp;
  norm(c, "mixer_norm", norm_rows, h, h, layer_norm_is_rms(m));
  gemm(c, "mamba_in_proj", OpGroup::attention, t, in_width, h, 1, true, in_width * h + (ms.proj_bias ? in_width : 0));
  memory(c, "mamba_conv1d", OpGroup::attention, 2 * t * conv * c.act_bytes,
         conv * d(ms.d_conv) + (ms.conv_bias ? conv : 0));
  if (ms.version == 2) {
    // mamba_split_conv1d_scan_combined saves the conv's input, not its output: its backward
    // runs causal_conv1d_fwd again before causal_conv1d_bwd (mamba_ssm ssd_combined.py).
    Op& conv_op = c.out.ops[static_cast<std::size_t>(c.out.count - 1)];
    conv_op.bwd_bytes += conv_op.fwd_bytes;
  }
  mark_selective(c);
  if (ms.version != 2) {
    const double r = d(ms.dt_rank);
    gemm(c, "mamba_x_proj", OpGroup::attention, t, mamba_x_proj_width(ms), di);
    gemm(c, "mamba_dt_proj", OpGroup::attention, t, di, r, 1, true, di * r + di);
  }
  memory(c, "mamba_scan", OpGroup::attention, t * mamba_scan_bytes_per_token(ms, c.act_bytes) / tp,
         ms.version == 2 ? 3 * d(ms.heads) / tp : di * (d(ms.d_state) + 1));
  Op& scan = c.out.ops[static_cast<std::size_t>(c.out.count - 1)];
  scan.fwd_flops = t * mamba_scan_flops_per_token(ms) / tp;
  scan.bwd_flops = 2 * scan.fwd_flops;
  if (ms.version == 2) {
    // SSD's states and CBᵀ pass through HBM between its kernels (mamba.h): memory-bound at
    // these widths, so its time is its traffic, forward and backward counted separately.
    const ScanBytes ssd = mamba2_ssd_training_bytes_per_token(ms, c.act_bytes);
    scan.fwd_bytes = t * ssd.fwd / tp;
    scan.bwd_bytes = t * ssd.bwd / tp;
    if (s.micro_batch > 1) {
      // Megatron-Core hands the combined scan batch-major tensors: _ssm_training copies the
      // in_proj output to [b, l, d] (rearrange(...).contiguous()) and the output back to
      // [l, b, d] (megatron/core/ssm/mamba_mixer.py at core_v0.16.0), a read and a write of
      // each, and autograd copies their gradients back the same way. One sequence per
      // micro-batch makes both views and no copy.
      memory(c, "mamba_layout", OpGroup::attention, 2 * t * (in_width + di) * c.act_bytes);
      Op& layout = c.out.ops[static_cast<std::size_t>(c.out.count - 1)];
      layout.bwd_bytes = layout.fwd_bytes;
    }
  }
  if (ms.version == 2) norm(c, "mamba_gated_norm", t, di, di);
  gemm(c, "mamba_out_proj", OpGroup::attention, t, h, di, 1, true, di * h + (ms.proj_bias ? h : 0));
  residual_add(c, "mixer_residual", OpGroup::attention, norm_rows);
}

// Gate+up and down of a dense MLP (or a shared expert) of width `ffn`, split tp ways.
[[gnu::always_inline]] inline void dense_mlp(Ctx& c, OpGroup group, double ffn, const char* up, const char* act,
                                             const char* down) {
  const ModelSpec& m = c.model;
  const double t = c.shape.tokens();
  const double h = d(m.hidden);
  const double width = ffn / c.shape.tp;
  const double mats = m.mlp == MlpKind::swiglu ? 2 : 1;  // SwiGLU's gate and up are one fused GEMM
  gemm(c, up, group, t, mats * width, h, 1, true, mats * width * h + (m.mlp_bias ? mats * width : 0));
  memory(c, act, group, mlp_activation_bytes(c, t, width));
  mark_selective(c);
  gemm(c, down, group, t, h, width, 1, true, width * h + (m.mlp_bias ? h : 0));
  // A dense MLP is the "mlp" recompute module; shared experts are part of the "moe" one.
  mark_modules(c, group == OpGroup::mlp ? kRecomputeMlp : kRecomputeMoe, 3);
}

void mlp_block(Ctx& c, bool moe_layer) {
  const ModelSpec& m = c.model;
  const OpShape& s = c.shape;
  const double t = s.tokens();
  const double h = d(m.hidden);
  const double norm_rows = s.sp ? t / s.tp : t;
  norm(c, "mlp_norm", norm_rows, h, h, layer_norm_is_rms(m));
  mark_modules(c, kRecomputeLayernorm);
  const int moe_first = c.out.count;
  if (!moe_layer) {
    dense_mlp(c, OpGroup::mlp, d(m.ffn_hidden), "mlp_up", "mlp_act", "mlp_down");
  } else {
    const MoeShape& e = m.moe;
    const double experts = d(e.experts);
    const double topk = d(e.top_k);
    // With expert TP = 1, each TP rank routes its own 1/tp of the tokens (Megatron requires
    // sequence parallelism with MoE and TP), so the routed work is not duplicated across TP.
    const double rows = t / s.tp;
    // Qwen2-MoE's shared-expert gate is one more output column of the router GEMM.
    gemm(c, "router", OpGroup::moe, rows, experts + (e.shared_expert_gate ? 1 : 0), h, 1, false);
    memory(c, "router_topk", OpGroup::moe, rows * experts * 4 * 2);
    c.out.host_sync_at = c.out.count;  // the token counts go to the host here
    // Balanced routing: the EP group's rows·k assignments spread over all experts, so each
    // local expert sees ep·rows·k / experts rows; the most loaded EP rank `imbalance` times
    // that. Its grouped GEMMs run at the shape of that many rows per expert (a small expert's
    // GEMM has a short M and a narrow N: wave quantisation and the k_half term of the roofline
    // price it), and it sets the pace of the layer.
    const double imbalance = std::max(1.0, s.moe_imbalance);
    const double local = experts / s.ep;
    const double per_expert = rows * topk * s.ep / experts * imbalance;
    const double received = rows * topk * imbalance;  // token copies the slowest rank computes
    // Permute by expert (read + write every token copy), and with EP a second pass sorting the
    // received chunks by local expert (Megatron-Core's AllToAll token dispatcher); combine
    // mirrors it and scales by the routing probabilities. A layout-driven dispatch (DeepEP or
    // HybridEP: DualPipe's, or Megatron-Core's flex dispatcher) reads the tokens in place and
    // sends each once per destination: only the receiver's sort remains.
    const double permute_rows = rows * topk + (s.ep > 1 ? received : 0);
    const bool fused = s.moe_layout_dispatch();
    const bool fp8_dispatch = s.fp8_moe_dispatch();
    const double sorted_rows = fused ? received : permute_rows;
    memory(c, "dispatch_permute", OpGroup::moe, 2 * sorted_rows * h * (fp8_dispatch ? c.gemm_in_bytes : c.act_bytes));
    const double mats = m.mlp == MlpKind::swiglu ? 2 : 1;
    const double f = d(e.expert_ffn_hidden);
    routed_gemm(c, "expert_up", per_expert, mats * f, h, local, imbalance);
    // An fp8 dispatch casts each token once on its sender, not each received copy.
    if (fp8_dispatch) c.fp8_cast_bytes -= (received - rows) * h * c.cast_bytes_per_element;
    if (c.shape.glu_clamp_unfused && m.glu_clamp > 0 && m.mlp == MlpKind::swiglu) {
      // gpt-oss's clamped GLU as Megatron-Core runs it (weighted_bias_quick_geglu_impl,
      // megatron/core/fusions/fused_bias_geglu.py at core_v0.16.0): before the fused kernel,
      // x_glu.clamp(max) and x_linear.clamp(±limit) each read and write one half of fc1's
      // output and torch.cat reads and writes both (8 bytes-per-element passes of the f-wide
      // half: 8·a·f per received copy). Backward: each clamp's masked gradient reads its
      // input and the gradient and writes one (6·a·f), and the chunk's gradient is the two
      // halves concatenated (4·a·f): 10·a·f.
      memory(c, "expert_act_clamp", OpGroup::moe, 8 * received * f * c.act_bytes);
      Op& clamp = c.out.ops[static_cast<std::size_t>(c.out.count - 1)];
      clamp.bwd_bytes = 10 * received * f * c.act_bytes;
      // Kernels: the two clamps and the cat forward; backward the two-sided clamp's
      // where((x >= -l) & (x <= l), g, 0) (four), the one-sided one's where(x <= l, g, 0) (two)
      // and the chunk's cat (PyTorch clamp_backward, torch/csrc/autograd/FunctionsManual.cpp).
      clamp.kernels_fwd = 3;
      clamp.kernels_bwd = 7;
      mark_selective(c);
      mark_modules(c, kRecomputeMoeAct);
    }
    memory(c, "expert_act", OpGroup::moe, mlp_activation_bytes(c, received, f));
    mark_selective(c);
    mark_modules(c, kRecomputeMoeAct);
    routed_gemm(c, "expert_down", per_expert, h, f, local, imbalance);
    if (m.mlp_bias) {
      // Experts with biases (gpt-oss): the up-projection's bias rides its GEMM's epilogue, but
      // Megatron-Core adds the down-projection's, scaled by each copy's routing probability,
      // eagerly per local expert (TEGroupedMLP._apply_bias, megatron/core/transformer/moe/
      // experts.py at core_v0.16.0: torch.cat of t + b·p over the experts' splits, then
      // .to(t.dtype)). Its bytes and kernels: eager_elementwise::moe_expert_bias_cost.
      const double element = s.moe_flex_dispatch && s.ep > 1 ? 4 : c.act_bytes;
      const eager_elementwise::ExpertBiasCost cost = eager_elementwise::moe_expert_bias_cost(c.act_bytes, element, local);
      memory(c, "expert_bias", OpGroup::moe, received * h * cost.fwd_bytes_per_element);
      Op& bias = c.out.ops[static_cast<std::size_t>(c.out.count - 1)];
      bias.bwd_bytes = received * h * cost.bwd_bytes_per_element;
      bias.kernels_fwd = static_cast<std::uint16_t>(cost.kernels_fwd);
      bias.kernels_bwd = static_cast<std::uint16_t>(cost.kernels_bwd);
    }
    memory(c, "combine_unpermute", OpGroup::moe, 2 * sorted_rows * h * c.act_bytes);
    if (e.shared_ffn() > 0) {
      dense_mlp(c, OpGroup::moe, d(e.shared_ffn()), "shared_up", "shared_act", "shared_down");
    }
    // The whole MoE block (router to combine, shared experts included) is the "moe" module.
    mark_modules(c, kRecomputeMoe, c.out.count - moe_first);
  }
  residual_add(c, "mlp_residual", OpGroup::mlp, norm_rows);
}

void finish_fp8(Ctx& c) {
  if (c.fp8_cast_bytes > 0) {
    Op& op = c.out.add();
    op.name = "fp8_cast";
    op.kind = OpKind::memory;
    op.group = OpGroup::norm;
    // Forward casts the GEMM inputs, backward the output gradients: half each way.
    op.fwd_bytes = c.fp8_cast_bytes / 2;
    op.bwd_bytes = c.fp8_cast_bytes / 2;
  }
  if (c.nvfp4_rht_bytes > 0) {
    // Transformer Engine's NVFP4 recipe with its Hadamard transforms (OpShape::nvfp4_rht): the
    // RHT amax kernel and the column-wise RHT cast read each cast input again; the activations
    // in the forward, the output gradients in the backward.
    Op& op = c.out.add();
    op.name = "nvfp4_rht";
    op.kind = OpKind::memory;
    op.group = OpGroup::norm;
    op.fwd_bytes = c.nvfp4_rht_bytes / 2;
    op.bwd_bytes = c.nvfp4_rht_bytes / 2;
  }
}

}  // namespace

double LayerOps::params() const {
  double p = 0;
  for (const Op& op : *this) p += op.params;
  return p;
}
double LayerOps::fwd_flops() const {
  double f = 0;
  for (const Op& op : *this) f += op.fwd_flops;
  return f;
}
double LayerOps::bwd_flops() const {
  double f = 0;
  for (const Op& op : *this) f += op.bwd_flops;
  return f;
}

namespace {
constexpr std::array<std::pair<std::string_view, std::uint8_t>, 6> kRecomputeModuleNames = {{
    {"layernorm", kRecomputeLayernorm},
    {"moe_act", kRecomputeMoeAct},
    {"moe", kRecomputeMoe},
    {"core_attn", kRecomputeCoreAttn},
    {"mla_up_proj", kRecomputeMlaUpProj},
    {"mlp", kRecomputeMlp},
}};
}  // namespace

std::optional<std::uint8_t> parse_recompute_module(std::string_view name) {
  for (const auto& [n, bit] : kRecomputeModuleNames) {
    if (n == name) return bit;
  }
  return std::nullopt;
}

std::string recompute_modules_name(std::uint8_t modules) {
  std::string out;
  for (const auto& [n, bit] : kRecomputeModuleNames) {
    if ((modules & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += n;
  }
  return out;
}

namespace {
constexpr std::array<std::pair<std::string_view, std::uint8_t>, 6> kCudaGraphScopeNames = {{
    {"attn", kGraphAttn},
    {"mlp", kGraphMlp},
    {"moe_router", kGraphMoeRouter},
    {"moe_preprocess", kGraphMoePreprocess},
    {"mamba", kGraphMamba},
    {"full_iteration", kGraphFullIteration},
}};
}  // namespace

std::optional<std::uint8_t> parse_cuda_graph_scope(std::string_view name) {
  for (const auto& [n, bit] : kCudaGraphScopeNames) {
    if (n == name) return bit;
  }
  return std::nullopt;
}

std::string cuda_graph_scope_name(std::uint8_t scope) {
  std::string out;
  for (const auto& [n, bit] : kCudaGraphScopeNames) {
    if ((scope & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += n;
  }
  return out;
}

double causal_keys_per_query(double seq_len, double window, bool chunked) {
  if (window <= 0 || window >= seq_len) return (seq_len + 1) / 2;
  if (chunked) {
    // k whole chunks of w (each query i in 1..w sees i keys: w(w+1)/2 per chunk) and a last
    // partial chunk of r tokens (r(r+1)/2).
    const double whole = std::floor(seq_len / window);
    const double rest = seq_len - whole * window;
    return (whole * window * (window + 1) / 2 + rest * (rest + 1) / 2) / seq_len;
  }
  // Queries 1..w see 1..w keys; the other s - w see w each.
  return (window * (window + 1) / 2 + (seq_len - window) * window) / seq_len;
}

void build_layer_ops(const ModelSpec& model, std::int64_t layer_idx, const OpShape& shape, LayerOps& out,
                     MixerPrefix& mixer) {
  GP_ASSERT(shape.tp >= 1 && shape.cp >= 1 && shape.ep >= 1, "parallel degrees start at 1");
  out.count = 0;
  out.host_sync_at = -1;
  Ctx c{model, shape, out, precision_bytes(shape.act), shape.gemm_in_bytes()};
  switch (model.mixer(layer_idx)) {
    case MixerKind::attention:
      attention_block(c, is_sliding_layer(model, layer_idx));
      break;
    case MixerKind::mamba:
      mamba_block(c);
      break;
    case MixerKind::none:
      break;
  }
  mixer.count = out.count;
  mixer.fp8_cast_bytes = c.fp8_cast_bytes;
  mixer.nvfp4_rht_bytes = c.nvfp4_rht_bytes;
  if (model.has_ffn(layer_idx)) mlp_block(c, model.is_moe_layer(layer_idx));
  finish_fp8(c);
}

void build_layer_ops(const ModelSpec& model, std::int64_t layer_idx, const OpShape& shape, LayerOps& out) {
  MixerPrefix mixer;
  build_layer_ops(model, layer_idx, shape, out, mixer);
}

bool same_mixer_ops(const ModelSpec& model, std::int64_t a, std::int64_t b) {
  // The mixer blocks read the layer only through these two (attention_block, mamba_block).
  return model.mixer(a) == model.mixer(b) && is_sliding_layer(model, a) == is_sliding_layer(model, b);
}

void build_layer_ops_after_mixer(const ModelSpec& model, std::int64_t layer_idx, const OpShape& shape,
                                 const MixerPrefix& mixer, LayerOps& out) {
  GP_ASSERT(shape.tp >= 1 && shape.cp >= 1 && shape.ep >= 1, "parallel degrees start at 1");
  // The mixer sets no host synchronisation (only a MoE block does).
  out.count = mixer.count;
  out.host_sync_at = -1;
  Ctx c{model, shape, out, precision_bytes(shape.act), shape.gemm_in_bytes()};
  c.fp8_cast_bytes = mixer.fp8_cast_bytes;
  c.nvfp4_rht_bytes = mixer.nvfp4_rht_bytes;
  if (model.has_ffn(layer_idx)) mlp_block(c, model.is_moe_layer(layer_idx));
  finish_fp8(c);
}

void build_embedding_ops(const ModelSpec& model, const OpShape& shape, LayerOps& out) {
  out.count = 0;
  out.host_sync_at = -1;
  Ctx c{model, shape, out, precision_bytes(shape.act), shape.gemm_in_bytes()};
  const double h = d(model.hidden);
  double params = d(model.vocab) * h / shape.tp;
  if (model.position == PositionKind::learned) params += d(model.max_seq_len) * h;
  // A row gather, then (vocab-parallel) an AllReduce the evaluator charges.
  memory(c, "embedding", OpGroup::head, 2 * shape.tokens() * h * c.act_bytes, params);
}

void build_head_ops(const ModelSpec& model, const OpShape& shape, LayerOps& out) {
  out.count = 0;
  out.host_sync_at = -1;
  Ctx c{model, shape, out, precision_bytes(shape.act), shape.gemm_in_bytes()};
  const double t = shape.tokens();
  const double h = d(model.hidden);
  const double vocab = d(model.vocab) / shape.tp;
  norm(c, "final_norm", shape.sp ? t / shape.tp : t, h, h, layer_norm_is_rms(model));
  // The output layer stays in 16-bit even in fp8 recipes (Transformer Engine keeps the first
  // and last layers in higher precision). Tied embeddings hold no extra weights here.
  gemm(c, "logits", OpGroup::head, t, vocab, h, 1, false, model.tied_embeddings ? 0 : vocab * h);
  // Cross-entropy in fp32 over the vocab shard: read the logits, write fp32 softmax.
  memory(c, "loss", OpGroup::head, t * vocab * (c.act_bytes + 4));
}

void build_mtp_ops(const ModelSpec& model, const OpShape& shape, LayerOps& out) {
  out.count = 0;
  out.host_sync_at = -1;
  Ctx c{model, shape, out, precision_bytes(shape.act), shape.gemm_in_bytes()};
  const double t = shape.tokens();
  const double h = d(model.hidden);
  const double vocab = d(model.vocab) / shape.tp;
  const double norm_rows = shape.sp ? t / shape.tp : t;
  const bool rms = layer_norm_is_rms(model);
  norm(c, "mtp_enorm", norm_rows, h, h, rms);
  norm(c, "mtp_hnorm", norm_rows, h, h, rms);
  // [emb; h] (2h) -> h, column-parallel: h/tp output columns per GPU, 2h·h/tp weights; inside
  // the fp8 context when the run is fp8 (multi_token_prediction.py: eh_proj under fp8_autocast).
  gemm(c, "mtp_eh_proj", OpGroup::head, t, h / shape.tp, 2 * h);
  finish_fp8(c);
  norm(c, "mtp_final_norm", norm_rows, h, h, rms);
  // The shared output layer again (16-bit, as the head) and the loss on the rolled labels.
  gemm(c, "mtp_logits", OpGroup::head, t, vocab, h, 1, false, 0);
  memory(c, "mtp_loss", OpGroup::head, t * vocab * (c.act_bytes + 4));
}

bool is_sliding_layer(const ModelSpec& model, std::int64_t layer_idx) {
  return model.sliding_window > 0 && layer_idx >= 0 && model.is_attention_layer(layer_idx) &&
         static_cast<std::size_t>(layer_idx) < model.layer_is_sliding.size() &&
         model.layer_is_sliding[static_cast<std::size_t>(layer_idx)];
}

int layer_kind(const ModelSpec& model, std::int64_t layer_idx) {
  const bool moe = model.is_moe_layer(layer_idx);
  const bool ffn = model.has_ffn(layer_idx);
  switch (model.mixer(layer_idx)) {
    case MixerKind::attention: {
      const int sliding = is_sliding_layer(model, layer_idx) ? 1 : 0;
      return ffn ? (moe ? 2 : 0) + sliding : 7 + sliding;
    }
    case MixerKind::mamba:
      return !ffn ? 6 : moe ? 5 : 4;
    case MixerKind::none:
      return moe ? 10 : 9;
  }
  return 0;
}

}  // namespace gpuplan
