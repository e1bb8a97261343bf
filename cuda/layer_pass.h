// One transformer layer's forward and backward (layer_bench.h describes the layer) on weights,
// gradients and activations its caller owns, so a single timed layer (layer_bench.cpp) and a
// stack of layers in a training step (train_step.cpp) run the same code. The pass owns only
// what a layer needs while it runs (the scores, the backward's intermediates) and the cuBLASLt
// plans, which every layer of one shape shares.
#pragma once

#include <cstddef>

#include "calibration/layer_shape.h"
#include "device_tensor.h"
#include "layer_kernels.h"
#include "lt_matmul.h"

namespace gpuplan::cuda {

// T = batch·seq tokens, H hidden, Q = heads·head_dim, KV = kv_heads·head_dim, F ffn.
struct LayerDims {
  std::size_t b, s, t, h, nh, nkv, d, q, kv, q3, f, rep;
  explicit LayerDims(const LayerShape& shape);
};

// The bf16 weights the layer's GEMMs and norms read (nn.Linear layout, as LayerWeights).
struct LayerWeightPtrs {
  const Bf16* wqkv;
  const Bf16* wo;
  const Bf16* wgu;
  const Bf16* wd;
  const Bf16* norm1;
  const Bf16* norm2;
};

// Where backward writes the fp32 weight gradients (as kept for an optimizer). Matrices are
// overwritten (one micro-batch: nothing to accumulate); norm gradients are zeroed and summed.
struct LayerGradPtrs {
  float* wqkv;
  float* wo;
  float* wgu;
  float* wd;
  float* norm1;
  float* norm2;
};

// What forward keeps for backward: one set per layer of a stack. Activations are token-major
// [T, ·]; q, k, v and the probabilities head-major (layer_bench.cpp).
struct LayerActivations {
  explicit LayerActivations(const LayerDims& n);
  Tensor<Bf16> xn1;
  Tensor<float> rstd1;
  Tensor<Bf16> qh, kh, vh, probs, attn, h1, xn2;
  Tensor<float> rstd2;
  Tensor<Bf16> gu, act;
};

// A bf16 × bf16 GEMM plan with fp32 accumulation and `cd` output (lt_matmul.h's conventions).
MatmulSpec bf16_gemm(Elem cd, bool a_transposed, bool b_transposed, std::size_t m, std::size_t n, std::size_t k);

class LayerPass {
 public:
  LayerPass(const LtContext& lt, const LayerShape& shape);
  const LayerDims& dims() const { return n_; }

  // out[T, H] = layer(x[T, H]); `saved` keeps what backward reads.
  void forward(const LayerWeightPtrs& w, const Bf16* x, LayerActivations& saved, Bf16* out);
  // dx[T, H] and the weight gradients for the output gradient dout[T, H], from the `saved` of
  // the forward of the same x. dx must not alias dout.
  void backward(const LayerWeightPtrs& w, const Bf16* x, const LayerActivations& saved, const Bf16* dout,
                const LayerGradPtrs& grads, Bf16* dx);

 private:
  LayerShape shape_;
  LayerDims n_;
  float scale_;  // 1/sqrt(head_dim), applied by the scores GEMM's alpha (and so to dq, dk)
  // Forward-only intermediates, then backward's (dprobs reuses scores_).
  Tensor<Bf16> qkv_, oh_;
  Tensor<float> scores_;
  Tensor<Bf16> dact_, dgu_, dxn2_, dh1_, dattn_, doh_, dvh_, dscores_, dqh_, dkh_, dqkv_, dxn1_;
  LtMatmul qkv_mm_, out_mm_, gu_mm_, down_mm_, scores_mm_, pv_mm_;
  LtMatmul dact_mm_, dwd_mm_, dxn2_mm_, dwgu_mm_, dattn_mm_, dwo_mm_, dxn1_mm_, dwqkv_mm_;
  LtMatmul dv_mm_, dprobs_mm_, dq_mm_, dk_mm_;
};

}  // namespace gpuplan::cuda
