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

}  // namespace gpuplan::eager_elementwise
