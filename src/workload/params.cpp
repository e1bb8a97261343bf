#include "workload/params.h"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "core/error.h"
#include "workload/kv_cache.h"
#include "workload/mamba.h"
#include "workload/ops.h"
#include "workload/size_math.h"

namespace gpuplan {
namespace {

using size_math::d;

// One norm's parameters: RMSNorm has a weight vector, LayerNorm a weight and (usually) a bias.
double norm_params(const ModelSpec& m) {
  return m.norm == NormKind::layernorm && m.norm_bias ? 2 * d(m.hidden) : d(m.hidden);
}

// Weight matrices of one feed-forward block of width `ffn`: gated MLPs (SwiGLU: gate, up,
// down; Shazeer 2020) have three h×f matrices, GeLU/ReLU² MLPs two (up, down).
double ffn_weights(const ModelSpec& m, std::int64_t ffn) {
  return (m.mlp == MlpKind::swiglu ? 3.0 : 2.0) * d(m.hidden) * d(ffn);
}
// Its biases: one per up/gate output and one per down output.
double ffn_biases(const ModelSpec& m, std::int64_t ffn) {
  if (!m.mlp_bias) return 0;
  return (m.mlp == MlpKind::swiglu ? 2.0 : 1.0) * d(ffn) + d(m.hidden);
}

// Keys one query sees, averaged over the s positions of a causal sequence: query i (from 1)
// sees min(i, w) keys, so the mean is (s+1)/2 without a window and
// (w(w+1)/2 + (s−w)·w) / s once s > w. Non-causal (bidirectional) attention sees min(s, w).
// Chunked layers (Llama 4) see the keys of their own chunk: ops.h's causal_keys_per_query.
double mean_keys_per_query(std::int64_t seq_len, std::int64_t window, bool causal, bool chunked) {
  const double s = d(seq_len);
  const double w = window > 0 ? d(window) : s;
  if (!causal) return std::min(s, w);
  if (s <= w) return (s + 1) / 2;
  if (chunked) return causal_keys_per_query(s, w, true);
  return (w * (w + 1) / 2 + (s - w) * w) / s;
}

// QK^T and PV FLOPs of one layer per key: 2·heads·d_qk multiply-adds for the scores and
// 2·heads·d_v for the weighted sum of values. MLA as trained (keys and values decompressed):
// d_qk = qk_nope + qk_rope, d_v = v_head_dim. DeepSeek's absorbed decode kernels multiply in the
// 512-wide latent instead (≈3.4× these FLOPs per key, V3) while reading only the latent.
double attention_flops_per_key(const ModelSpec& m) {
  const double d_qk = m.mla ? d(m.mla_shape.qk_nope_head_dim + m.mla_shape.qk_rope_head_dim) : d(m.head_dim);
  const double d_v = m.mla ? d(m.mla_shape.v_head_dim) : d(m.head_dim);
  return 2 * d(m.heads) * (d_qk + d_v);
}

std::int64_t window_of(const ModelSpec& m, std::int64_t layer_idx) {
  return m.is_sliding_layer(layer_idx) ? m.sliding_window : 0;
}

}  // namespace

// Per layer (transformers' modeling_<type>.py; DeepSeek-V2 paper §2.1 for MLA):
//   MHA/GQA: Q and O are h × heads·head_dim, K and V are h × kv_heads·head_dim.
//   MLA: W_DQ h×q_lora, W_UQ q_lora×heads·(nope+rope) (or W_Q h×heads·(nope+rope) without
//        q_lora), W_DKV+W_KR h×(kv_lora+rope), W_UK+W_UV kv_lora×heads·(nope+v), W_O heads·v×h,
//        plus RMSNorms on the q and kv latents.
//   MLP: 3·h·ffn gated, 2·h·ffn otherwise. MoE: experts × that at the expert width, plus shared
//        experts and a router of experts × h (+ a per-expert bias when the router has one).
//   Norms: two per layer (pre-attention, pre-MLP). Attention sinks: one logit per head.
LayerParams layer_params(const ModelSpec& m, bool moe_layer) {
  return layer_params(m, MixerKind::attention, moe_layer ? FfnKind::moe : FfnKind::dense);
}

LayerParams layer_params(const ModelSpec& m, MixerKind mixer, FfnKind ffn) {
  LayerParams p;
  const double h = d(m.hidden);
  const double heads = d(m.heads);
  double base_biases = 0;
  if (mixer == MixerKind::attention) {
    if (m.mla) {
      const MlaShape& a = m.mla_shape;
      const double qk = d(a.qk_nope_head_dim + a.qk_rope_head_dim);
      const double q = a.q_lora_rank > 0 ? h * d(a.q_lora_rank) + d(a.q_lora_rank) * heads * qk : h * heads * qk;
      const double kv = h * d(a.kv_lora_rank + a.qk_rope_head_dim) +
                        d(a.kv_lora_rank) * heads * d(a.qk_nope_head_dim + a.v_head_dim);
      p.attention = q + kv + heads * d(a.v_head_dim) * h;
      p.norms += d(a.q_lora_rank) + d(a.kv_lora_rank);
      if (m.qkv_bias)
        base_biases += (a.q_lora_rank > 0 ? d(a.q_lora_rank) : heads * qk) + d(a.kv_lora_rank + a.qk_rope_head_dim);
    } else {
      const double q_width = heads * d(m.head_dim);
      const double kv_width = d(m.kv_heads) * d(m.head_dim);
      p.attention = h * q_width + 2 * h * kv_width + q_width * h;
      if (m.qkv_bias) base_biases += q_width + 2 * kv_width;
      if (m.qk_norm) p.norms += 2 * d(m.head_dim);
    }
    if (m.attn_out_bias) base_biases += h;
    if (m.attn_sinks) base_biases += heads;
  } else if (mixer == MixerKind::mamba) {
    const MambaParams mp = mamba_params(m);
    p.mamba = mp.matmul;
    p.mamba_other = mp.other;
  }
  // One pre-norm per block: mixer and MLP (Nemotron-H's layers hold one of the two).
  p.norms += (mixer != MixerKind::none ? norm_params(m) : 0) + (ffn != FfnKind::none ? norm_params(m) : 0);

  if (ffn == FfnKind::none) {
    p.biases = p.biases_active = base_biases;
    return p;
  }
  if (ffn == FfnKind::dense) {
    p.mlp = ffn_weights(m, m.ffn_hidden);
    base_biases += ffn_biases(m, m.ffn_hidden);
    p.biases = p.biases_active = base_biases;
    return p;
  }
  const MoeShape& e = m.moe;
  const double expert = ffn_weights(m, e.expert_ffn_hidden);
  const double expert_bias = ffn_biases(m, e.expert_ffn_hidden);
  p.experts = d(e.experts) * expert;
  p.experts_active = d(e.top_k) * expert;
  // The shared block: shared_experts experts of the expert width, or one of its own width.
  const bool own_width = e.shared_ffn_hidden > 0;
  p.shared_experts = own_width ? ffn_weights(m, e.shared_ffn_hidden) : d(e.shared_experts) * expert;
  const double shared_bias = own_width ? ffn_biases(m, e.shared_ffn_hidden) : d(e.shared_experts) * expert_bias;
  p.router = d(e.experts) * h + (e.shared_expert_gate ? h : 0);
  if (e.router_bias) base_biases += d(e.experts);
  p.biases = base_biases + d(e.experts) * expert_bias + shared_bias;
  p.biases_active = base_biases + d(e.top_k) * expert_bias + shared_bias;
  return p;
}

LayerParams layer_params_at(const ModelSpec& m, std::int64_t layer_idx) {
  const FfnKind ffn = !m.has_ffn(layer_idx) ? FfnKind::none : m.is_moe_layer(layer_idx) ? FfnKind::moe : FfnKind::dense;
  return layer_params(m, m.mixer(layer_idx), ffn);
}

LayerParams& LayerParams::operator+=(const LayerParams& o) {
  attention += o.attention;
  mamba += o.mamba;
  mamba_other += o.mamba_other;
  mlp += o.mlp;
  experts += o.experts;
  experts_active += o.experts_active;
  shared_experts += o.shared_experts;
  router += o.router;
  norms += o.norms;
  biases += o.biases;
  biases_active += o.biases_active;
  return *this;
}

// Whole model: layers + input embedding (vocab × h) + output head (vocab × h unless tied)
// + learned positions (max_seq_len × h) + the final norm. The output head is a matmul whether
// or not it is tied, so it always counts in matmul_active.
// DeepSeek-V3 multi-token prediction (V3 report §2.2): per extra depth a projection 2h × h,
// two RMSNorms, one transformer block and the shared head's norm; embedding and head shared.
ParamCounts count_params(const ModelSpec& m) {
  ParamCounts c;
  const double h = d(m.hidden);
  c.input_embedding = d(m.vocab) * h;
  c.output_head = m.tied_embeddings ? 0 : d(m.vocab) * h;
  c.position_embedding = m.position == PositionKind::learned ? d(m.max_seq_len) * h : 0;
  c.final_norm = norm_params(m);
  c.embedding = c.input_embedding + c.output_head + c.position_embedding;
  if (!m.is_hybrid()) {
    // Every layer is attention + (dense or MoE) MLP: two layer shapes, counted once each.
    for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx) {
      if (m.is_moe_layer(layer_idx))
        ++c.moe_layers;
      else
        ++c.dense_layers;
    }
    if (c.dense_layers > 0) c.dense_layer = layer_params(m, false);
    if (c.moe_layers > 0) c.moe_layer = layer_params(m, true);
    for (std::int64_t i = 0; i < c.dense_layers; ++i) c.layers += c.dense_layer;
    for (std::int64_t i = 0; i < c.moe_layers; ++i) c.layers += c.moe_layer;
  } else {
    // Hybrids (Jamba, Nemotron-H): each layer by its own mixer and MLP; dense_layer and
    // moe_layer show the first layer of each.
    for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx) {
      const LayerParams lp = layer_params_at(m, layer_idx);
      c.layers += lp;
      if (m.is_moe_layer(layer_idx)) {
        if (c.moe_layers++ == 0) c.moe_layer = lp;
      } else if (c.dense_layers++ == 0) {
        c.dense_layer = lp;
      }
    }
  }
  c.total = c.layers.total() + c.embedding + c.final_norm;
  c.active = c.layers.active() + c.embedding + c.final_norm;
  c.non_embedding = c.total - c.embedding;
  c.matmul_active = c.layers.matmul_active() + d(m.vocab) * h;
  if (m.mtp_layers > 0) {
    const LayerParams block = layer_params(m, m.is_moe());
    c.mtp = d(m.mtp_layers) * (2 * h * h + 3 * norm_params(m) + block.total());
  }
  return c;
}

namespace {

// `term` added `count` times to 0, in order, as a loop would. Where term's significand has at
// least bit_width(count) trailing zero bits, every partial sum k·term (k <= count) is an integer
// below 2^53 times term's power of two, so exact, and the loop's sum is count·term exactly: one
// multiplication (DeepSeek-V3's 61 layers at 4,096 tokens: 81,920 · 2,048.5 has 15 significant
// bits). Others (and zero, NaN, infinities, subnormals, huge terms) take the loop.
double repeated_sum(double term, std::int64_t count) {
  const auto bits = std::bit_cast<std::uint64_t>(term);
  const std::uint64_t exponent = (bits >> 52) & 0x7ff;
  if (count > 0 && exponent > 0 && exponent < 0x7ff - 128) {
    const std::uint64_t significand = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
    if (std::countr_zero(significand) >= static_cast<int>(std::bit_width(static_cast<std::uint64_t>(count)))) {
      return static_cast<double>(count) * term;
    }
  }
  double sum = 0;
  for (std::int64_t i = 0; i < count; ++i) sum += term;
  return sum;
}

}  // namespace

// Σ over layers of 2·heads·(d_qk + d_v) × mean keys per query. Without a window and causal,
// per layer 2·heads·(d_qk+d_v)·(s+1)/2; for MHA (d_qk = d_v = head_dim, heads·head_dim = d_attn)
// that is 2·d_attn·(s+1) per layer: the full QK^T and PV products, 2·2·layers·s·d_attn, halved
// for causality, which is Kaplan et al. 2020's (Table 1) 2·n_layer·n_ctx·d_attn up to the +1.
// Megatron's MFU formula (Narayanan et al. 2021, Korthikanti et al. 2022: 24·l·h²·(1 + s/6h)
// per token forward) counts the full square, 4·l·s·h: causal = false.
double attention_flops_per_token(const ModelSpec& m, std::int64_t seq_len, bool causal) {
  GP_ASSERT(seq_len >= 1, "sequence length must be positive (callers validate user input)");
  const double per_key = attention_flops_per_key(m);
  double flops = 0;
  // Layers share a handful of windows: each layer's term is recomputed only when its window
  // differs from the previous layer's (the training evaluator calls this once per plan). The
  // terms are added in layer order as before, so the sum is the same to the bit.
  std::int64_t last_window = -1;
  double term = 0;
  if (m.sliding_window <= 0 && m.layer_mixer.empty()) {
    // Every layer attends over the whole span (no windows, no other mixers): one term, added
    // once per layer as below (repeated_sum: multiplied only where that is the same sum to the
    // bit) without the per-layer lookups, which were a twentieth of the training evaluator's time.
    term = per_key * mean_keys_per_query(seq_len, 0, causal, m.attention_chunked);
    return repeated_sum(term, m.layers);
  }
  for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx) {
    if (!m.is_attention_layer(layer_idx)) continue;
    const std::int64_t window = window_of(m, layer_idx);
    if (window != last_window) {
      term = per_key * mean_keys_per_query(seq_len, window, causal, m.attention_chunked);
      last_window = window;
    }
    flops += term;
  }
  return flops;
}

// The scans of every Mamba layer, per token (workload/mamba.h); 0 without Mamba layers.
double mamba_scan_flops_per_token(const ModelSpec& m) {
  if (m.mamba.version == 0) return 0;
  std::int64_t n = 0;
  for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx) n += m.is_mamba_layer(layer_idx) ? 1 : 0;
  return d(n) * mamba_scan_flops_per_token(m.mamba);
}

// 2 FLOPs (multiply + add) per weight a token meets (Kaplan et al. 2020, C_forward ≈ 2N),
// with N the active matmul weights (MoE: top-k + shared experts + router), plus attention.
double forward_flops_per_token(const ModelSpec& m, std::int64_t seq_len) {
  return 2 * count_params(m).matmul_active + attention_flops_per_token(m, seq_len) + mamba_scan_flops_per_token(m);
}

// Backward = 2 × forward (a gradient for the input and one for the weights of every matmul),
// so a step costs 3 × forward: 6N per token (Kaplan et al. 2020; Narayanan et al. 2021 eq. 3)
// plus 3 × the attention term. Activation recomputation adds to this (hardware FLOPs); it is
// not counted here (model FLOPs, as in MFU).
double train_flops_per_token(const ModelSpec& m, double matmul_active_params, std::int64_t seq_len) {
  // Mamba scans, like attention: forward + a backward of twice its work.
  return 6 * matmul_active_params + 3 * attention_flops_per_token(m, seq_len, true) + 3 * mamba_scan_flops_per_token(m);
}

double train_flops_per_token(const ModelSpec& m, std::int64_t seq_len) {
  return train_flops_per_token(m, count_params(m).matmul_active, seq_len);
}

// A decode step's token attends to min(context, window) keys in every layer.
double decode_flops_per_token(const ModelSpec& m, std::int64_t context) {
  GP_ASSERT(context >= 1, "context must be positive (callers validate user input)");
  const double per_key = attention_flops_per_key(m);
  double attention = 0;
  for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx) {
    if (!m.is_attention_layer(layer_idx)) continue;
    const std::int64_t window = window_of(m, layer_idx);
    attention += per_key * d(window > 0 ? std::min(context, window) : context);
  }
  // A Mamba layer's decode step updates its fixed-size state whatever the context.
  return 2 * count_params(m).matmul_active + attention + mamba_scan_flops_per_token(m);
}

// Every parameter at the precision's storage size (core/precision.h). Quantised checkpoints
// keep some tensors wider (norms, often embeddings, the head, gpt-oss's attention) and add
// scales (int4 with group size 128 and a bf16 scale: +1/64 byte per weight): not modelled.
double weight_bytes(const ModelSpec& m, Precision p) { return count_params(m).total * precision_bytes(p); }

// The KV formulas live in workload/kv_cache.cpp (one definition, shared with serving).
double kv_cache_bytes_per_token_per_layer(const ModelSpec& m, Precision p) {
  return kv_elems_per_token_per_layer(m) * precision_bytes(p);
}

double kv_cache_bytes_per_token(const ModelSpec& m, Precision p) {
  const KvShape kv = make_kv_shape(m);
  return d(kv.full_layers + kv.sliding_layers) * kv_cache_bytes_per_token_per_layer(m, p);
}

// A sliding-window layer keeps only its last `window` tokens (a ring buffer, as vLLM and
// TensorRT-LLM allocate it): one sequence on one GPU with no parallelism and no paging.
double kv_cache_bytes(const ModelSpec& m, std::int64_t context, Precision p) {
  GP_ASSERT(context >= 0, "context must not be negative (callers validate user input)");
  // Mamba layers add their fixed recurrent state (kv_cache.h).
  const KvShape kv = make_kv_shape(m);
  return kv_bytes_per_seq_per_gpu(kv, d(context), p, 1, 1) + recurrent_state_bytes_per_seq_per_gpu(kv, 1, 1);
}

}  // namespace gpuplan
