// Activation bytes per layer. Each term is a tensor the backward pass reads (Korthikanti et al.
// 2022, table 2, term by term); with fused attention the a·s² scores, softmax and dropout
// masks are not stored (FlashAttention keeps O and the log-sum-exp and recomputes the rest).
#include "workload/activations.h"

#include <algorithm>

#include "core/strings.h"
#include "workload/mamba.h"
#include "workload/size_math.h"

namespace gpuplan {
namespace {

using size_math::d;

}  // namespace

std::string_view recompute_name(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "?";
}

std::optional<Recompute> parse_recompute(std::string_view name) {
  const std::string n = to_lower(name);
  if (n == "none") return Recompute::none;
  if (n == "selective") return Recompute::selective;
  if (n == "full") return Recompute::full;
  return std::nullopt;
}

LayerActivations layer_activations(const ModelSpec& m, std::int64_t layer_idx, const OpShape& s,
                                   Recompute recompute, std::uint8_t recompute_modules) {
  const double a = precision_bytes(s.act);
  // Inputs of low-precision GEMMs are kept in that precision, scales included, for the weight
  // gradient (Transformer Engine saves the quantised input), everything else in `a`.
  const double g = s.gemm == s.act ? a : std::min(a, s.gemm_in_bytes());
  // DeepSeek-V3's low-precision cache (report sec. 3.3.3): the attention output in E5M6
  // (12 bits), the experts' SwiGLU inputs in the GEMM format with the SwiGLU output recomputed.
  const bool cache = s.low_precision_act_cache && s.gemm != s.act;
  const double o_bytes = cache ? std::min(a, 1.5) : a;
  const double t = s.tokens();
  const double tp = s.tp;
  const double h = d(m.hidden);
  // Residual-stream tensors: replicated over TP, split by SP. Two norm inputs (16-bit) and two
  // norm outputs, which are the QKV and MLP GEMM inputs.
  const double stream_rows = s.sp ? t / tp : t;
  const MixerKind mixer = m.mixer(layer_idx);
  const bool ffn = m.has_ffn(layer_idx);
  // Sub-blocks in the layer (two, except in Nemotron-H's single-block layers).
  const double blocks = (mixer != MixerKind::none ? 1.0 : 0.0) + (ffn ? 1.0 : 0.0);
  double bytes = blocks * stream_rows * h * (a + g);

  // Outputs selective recompute does not keep: norm outputs, MLA's q/k/v, activation outputs.
  double selective_frees = blocks * stream_rows * h * g;
  // What each of Megatron-Core's recompute modules (RecomputeModule, workload/ops.h) does not
  // keep; `_beyond` the part selective recompute does not already free.
  const double norm_frees = ((mixer == MixerKind::attention ? 1.0 : 0.0) + (ffn ? 1.0 : 0.0)) * stream_rows * h * g;
  double mla_frees = 0;
  double moe_act_frees = 0;
  double moe_frees = 0;
  double moe_frees_beyond = 0;
  double mlp_frees = 0;
  double mlp_frees_beyond = 0;

  // Attention: the tensors the fused kernel and the projections read back.
  if (mixer == MixerKind::mamba) {
    // Mamba: in_proj output, conv output, (Mamba-1) x_proj output and Δ, the scan output and
    // (Mamba-2) the gated norm output that out_proj reads; the fused scan keeps no states
    // (recomputed in the backward, Gu & Dao 2023 §3.3.3). Selective recompute reruns the conv.
    const MambaShape& ms = m.mamba;
    const double di = d(ms.d_inner) / tp;
    const double conv = mamba_conv_channels(ms) / tp;
    bytes += t * (mamba_in_proj_width(ms) / tp + conv + di) * a + t * di * g;
    if (ms.version != 2) bytes += t * (mamba_x_proj_width(ms) + di) * a;
    selective_frees += t * conv * a;
  } else if (mixer == MixerKind::none) {
    // Nemotron-H's MLP-only layers: no token mixer.
  } else if (m.mla) {
    const MlaShape& q = m.mla_shape;
    const double heads = d(m.heads) / tp;
    const double d_qk = d(q.qk_nope_head_dim + q.qk_rope_head_dim);
    const double d_v = d(q.v_head_dim);
    if (q.q_lora_rank > 0) bytes += 2 * t * d(q.q_lora_rank) * a;     // q_down out, q_norm out
    bytes += t * (d(q.kv_lora_rank + q.qk_rope_head_dim) + d(q.kv_lora_rank)) * a;  // kv_down, kv_norm
    bytes += t * heads * (2 * d_qk + d_v) * a;                          // q, k, v
    bytes += t * heads * d_v * o_bytes + t * heads * 4;                 // O and fp32 log-sum-exp
    selective_frees += t * heads * (2 * d_qk + d_v) * a;
    mla_frees = t * heads * (2 * d_qk + d_v) * a;
  } else {
    const double heads = d(m.heads) / tp;
    const double kv = std::max(1.0, d(m.kv_heads) / tp);
    const double hd = d(m.head_dim);
    bytes += t * (heads + 2 * kv) * hd * a;  // q, k, v
    if (s.attention_materialized) {
      // Materialised attention (workload/ops.cpp materialized_attention) keeps no log-sum-exp
      // but the s×s tensors its kernels' backwards read: the softmax output and, with dropout,
      // the dropped copy (16-bit) and the mask (one byte): Korthikanti et al. 2022 table 2's
      // 5·a·s²·b bytes per layer, /TP. Selective recompute reruns them instead.
      const double scores = heads * t * s.seq_len;  // t queries × every key, per local head
      const double kept = scores * (s.attention_probs_dropout ? 2 * a + 1 : a);
      bytes += t * heads * hd * o_bytes + kept;
      selective_frees += kept;
    } else {
      bytes += t * heads * hd * o_bytes + t * heads * 4;
    }
  }

  // MLP: the up-projection output (pre-activation) and the activation output.
  const double mats = m.mlp == MlpKind::swiglu ? 2 : 1;
  if (!ffn) {
    // Nemotron-H's mixer-only layers: no MLP.
  } else if (m.is_moe_layer(layer_idx)) {
    const MoeShape& e = m.moe;
    const double rows = t / tp;  // routed per TP rank (see ops.cpp)
    const double pairs = rows * d(e.top_k);
    const double moe_start = bytes;
    bytes += rows * d(e.experts) * 4;                              // router probabilities (fp32)
    bytes += pairs * h * g;                                        // permuted expert inputs
    // Expert up-projection out (the SwiGLU input) and the activation out, per routed pair at
    // the expert width and per token at the shared experts' width; the cache keeps only the
    // first, in the GEMM format.
    const double up_elems = pairs * d(e.expert_ffn_hidden) + (e.shared_ffn() > 0 ? t * d(e.shared_ffn()) / tp : 0);
    const double selective_before = selective_frees;
    if (cache) {
      bytes += up_elems * mats * g;
    } else {
      bytes += up_elems * (mats * a + g);
      selective_frees += up_elems * g;
      moe_act_frees += pairs * d(e.expert_ffn_hidden) * g;
    }
    if (s.glu_clamp_unfused && m.glu_clamp > 0 && m.mlp == MlpKind::swiglu) {
      // The eager clamps keep fc1's unclamped output for their backward beside the clamped
      // copy the fused activation saves (ops.cpp `expert_act_clamp`).
      const double clamp_in = pairs * d(e.expert_ffn_hidden) * mats * a;
      bytes += clamp_in;
      selective_frees += clamp_in;
      moe_act_frees += clamp_in;
    }
    // "moe" keeps only the block's input (the norm output, kept for the checkpoint).
    moe_frees = bytes - moe_start;
    moe_frees_beyond = moe_frees - (selective_frees - selective_before);
  } else {
    bytes += t * d(m.ffn_hidden) / tp * (mats * a + g);  // up-projection out (16-bit), act out
    selective_frees += t * d(m.ffn_hidden) / tp * g;
    mlp_frees = t * d(m.ffn_hidden) / tp * (mats * a + g);
    mlp_frees_beyond = t * d(m.ffn_hidden) / tp * mats * a;
  }

  // The recompute modules' frees, beyond selective recompute's where both apply.
  const bool sel = recompute == Recompute::selective;
  double module_frees = 0;
  if ((recompute_modules & kRecomputeMoe) != 0) {
    module_frees += sel ? moe_frees_beyond : moe_frees;
  } else if ((recompute_modules & kRecomputeMoeAct) != 0 && !sel) {
    module_frees += moe_act_frees;
  }
  if (!sel) {
    if ((recompute_modules & kRecomputeLayernorm) != 0) module_frees += norm_frees;
    if ((recompute_modules & kRecomputeMlaUpProj) != 0) module_frees += mla_frees;
  }
  if ((recompute_modules & kRecomputeMlp) != 0) module_frees += sel ? mlp_frees_beyond : mlp_frees;

  LayerActivations out;
  switch (recompute) {
    case Recompute::none:
      out.stored_bytes = bytes - module_frees;
      out.working_bytes = module_frees;
      break;
    case Recompute::selective:
      // The recomputed pieces of one layer are alive while it runs its backward.
      out.stored_bytes = bytes - selective_frees - module_frees;
      out.working_bytes = selective_frees + module_frees;
      break;
    case Recompute::full:
      // Only the layer input (split by SP, as Megatron stores it); one layer's full set while
      // it runs its backward.
      out.stored_bytes = stream_rows * h * a;
      out.working_bytes = bytes;
      break;
  }
  return out;
}

double korthikanti_layer_bytes(double s, double b, double h, double a, int t, bool sp, Recompute r) {
  const double tp = t;
  if (r == Recompute::full) return 2 * s * b * h / (sp ? tp : 1);
  const double attention_scores = r == Recompute::selective ? 0 : 5 * a * s / h;
  if (sp) return s * b * h * (34 + attention_scores) / tp;
  // TP without SP: the 10·s·b·h of norms and dropout stay replicated (eq. 4).
  return s * b * h * (10 + (24 + attention_scores) / tp);
}

}  // namespace gpuplan
