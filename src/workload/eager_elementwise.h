// HBM bytes per element of the element-wise chains of a transformer layer, fused (one kernel
// reads the input and writes the output) or as eager PyTorch runs them (one kernel per op,
// each streaming its whole tensor; torch.compile, Transformer Engine and Megatron's fused
// kernels collapse the chain into one). `a` is the activation element's size in bytes.
//
// The eager decompositions are the reference implementations torchtitan and Meta's LLaMA code
// run without torch.compile (pytorch/torchtitan torchtitan/models/norms.py RMSNorm and
// models/llama/model.py apply_rotary_emb and FeedForward at 9dec370, the commit of
// benchmarks/llama3_h100_202412_torchtitan.md):
//   RMSNorm  x.float() (read a, write 4) · pow(2) (4 + 4) · mean(-1) (read 4) · x * rsqrt
//            (4 + 4) · type_as(x) (4 + a) · * weight (a + a)          = 4a + 28 bytes
//   RoPE     x.float() (a + 4) · complex multiply by freqs_cis (4 + 4) · type_as (4 + a)
//                                                                     = 2a + 16 bytes
//   SwiGLU   silu(gate) (a + a) · * up (2a + a), per element of the FFN width = 5a bytes
// against 2a (norm, RoPE: read and write) and 3a (SwiGLU: read gate and up, write) fused.
// LayerNorm and GeLU are single native ATen kernels in eager mode too (at::native_layer_norm,
// at::gelu), so GPT-style and MPT-style layers (LayerNorm, GeLU, ALiBi) lose nothing eager.
// The backward is charged as the model charges every memory-bound op (2× the forward), which
// autograd's op-by-op backward of these chains also is, to first order.
#pragma once

namespace gpuplan::eager_elementwise {

inline constexpr double rmsnorm_bytes(double a, bool eager) { return eager ? 4 * a + 28 : 2 * a; }
inline constexpr double rope_bytes(double a, bool eager) { return eager ? 2 * a + 16 : 2 * a; }
// Per element of the FFN width (the gate and up projections' outputs are each that wide).
inline constexpr double swiglu_bytes(double a, bool eager) { return eager ? 5 * a : 3 * a; }

// Megatron-Core's unfused RoPE, per element of the rotated q and k (the path
// apply_rotary_pos_emb takes when Transformer Engine's fused kernel cannot apply YaRN's
// attention factor: _apply_rotary_pos_emb_bshd and _rotate_half, megatron/core/models/common/
// embeddings/rope_utils.py at core_v0.16.0). Forward, one kernel per op, a = element bytes:
//   t * cos (a + a) · -x2 of the chunk (a/2 + a/2) · cat(-x2, x1) (a + a) · * sin (a + a)
//   · the sum (2a + a) · cat((t, t_pass)) with an empty t_pass, a copy (a + a)   = 12a
// (t[..., :rot_dim] over the whole head is `self`, no copy; cos and sin are per position,
// not per element). Autograd's backward: grad · sin (2a), the negation's (a), the chunk's
// cat of its two halves (2a), grad · cos (2a), the two branches' sum (3a), the empty
// t_pass slice's zero-filled full-size gradient (a) and its sum into t's (3a) = 14a.
// Fused (TE's fused_apply_rotary_pos_emb): 2a forward, the model's 2× of it backward.
inline constexpr double megatron_rope_fwd_bytes(double a) { return 12 * a; }
inline constexpr double megatron_rope_bwd_bytes(double a) { return 14 * a; }
// The same chain's kernels per rotated tensor (q or k): forward cos, · mscale, .to, sin,
// · mscale, .to over the per-position tables, then t · cos, the negation, the cat, · sin, the
// sum and the final cat (12); backward grad · cos, grad · sin, the negation's, the chunk's
// cat, the two branches' sum, the slice's zero-fill and copy, the empty t_pass's zero-fill
// (8). The host issues each (cost/roofline.h op_time).
inline constexpr int kMegatronRopeFwdKernels = 12;
inline constexpr int kMegatronRopeBwdKernels = 8;

// Megatron-Core's per-expert bias of the experts' down-projection (TEGroupedMLP._apply_bias,
// megatron/core/transformer/moe/experts.py at core_v0.16.0):
//   torch.cat([t + b * p for t, b, p in zip(split(x, n_e), biases, split(probs, n_e))])
//       .to(x.dtype)
// per element of the received token copies, `a` the activation's bytes, `p` the routing
// probability's: bf16 with Megatron-Core's AllToAll dispatcher (the router's logits, hence its
// probabilities, keep the input's dtype without --moe-router-dtype: router.py gating and
// Transformer Engine's fused top-k, whose probs take the logits' dtype), float32 with the flex
// dispatcher (MoEFlexTokenDispatcher casts them: "HybridEP only supports float32 probs",
// "DeepEP only supports float32 probs", token_dispatcher.py at core_v0.16.0). b · p and
// t + b · p then promote to o = max(a, p) bytes:
//   forward   b · p written (o) · t + b · p (a + o read, o written) · the cat (o + o)
//             · .to(x.dtype) where o ≠ a (o + a)       bf16: 6a = 12 bytes, fp32 probs: 28
//   backward  .to's gradient back to o (a + o) and each split's gradient cast back to a
//             (o + a) where o ≠ a · the split's cat of t's gradients (a + a) · for b and for
//             p a product (o + o) and its sum over rows or columns (o)
//                                                          bf16: 8a = 16 bytes, fp32 probs: 40
// Kernels with `experts` local experts: forward a product and a sum per expert, the cat and
// (o ≠ a) the cast; backward per expert two products, two sums and the bias's gradient
// accumulation, the two splits' cats, and (o ≠ a) the casts back per expert (of t's and of
// b's gradients) and the .to's.
struct ExpertBiasCost {
  double fwd_bytes_per_element = 0;
  double bwd_bytes_per_element = 0;
  int kernels_fwd = 0;
  int kernels_bwd = 0;
};
inline constexpr ExpertBiasCost moe_expert_bias_cost(double a, double p, double experts) {
  const double o = p > a ? p : a;
  const bool cast = o != a;
  const int e = static_cast<int>(experts);
  ExpertBiasCost c;
  c.fwd_bytes_per_element = o + (a + o + o) + 2 * o + (cast ? o + a : 0);
  c.bwd_bytes_per_element = (cast ? 2 * (a + o) : 0) + 2 * a + 2 * (3 * o);
  c.kernels_fwd = 2 * e + 1 + (cast ? 1 : 0);
  c.kernels_bwd = 5 * e + 2 + (cast ? 2 * e + 1 : 0);
  return c;
}

}  // namespace gpuplan::eager_elementwise
