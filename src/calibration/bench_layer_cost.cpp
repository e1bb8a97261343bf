#include "calibration/bench_layer_cost.h"

#include "calibration/step_layout.h"

namespace gpuplan {
namespace {

constexpr double kBf16 = 2;
constexpr double kF32 = 4;

struct Builder {
  std::vector<BenchKernel> out;
  bool backward = false;

  // C[m,n] = A[m,k]·B[k,n] `count` times; a and b are read, c written (and read too when the
  // GEMM adds a residual, beta = 1).
  void gemm(const char* name, double m, double n, double k, double count, double c_bytes, bool accumulate = false) {
    BenchKernel g;
    g.name = name;
    g.gemm = true;
    g.backward = backward;
    g.m = m;
    g.n = n;
    g.k = k;
    g.count = count;
    g.bytes = count * ((m * k + k * n) * kBf16 + m * n * c_bytes * (accumulate ? 2 : 1));
    out.push_back(g);
  }
  void memory(const char* name, double bytes) {
    BenchKernel k;
    k.name = name;
    k.backward = backward;
    k.bytes = bytes;
    out.push_back(k);
  }
};

void add_layer_kernels(Builder& k, const LayerShape& shape, bool backward) {
  const double b = shape.batch, s = shape.seq, t = shape.tokens(), h = shape.hidden;
  const double nh = shape.heads, nkv = shape.kv_heads, d = shape.head_dim(), f = shape.ffn;
  const double q = nh * d, kv = nkv * d, q3 = q + 2 * kv, rep = nh / nkv, groups = b * nkv;
  const double rows = b * nh * s;                 // softmax rows
  const double valid = b * nh * s * (s + 1) / 2;  // causal entries: the forward softmax reads only these
  k.backward = backward;
  if (!backward) {  // forward (cuda/layer_pass.cpp, forward())
    k.memory("rmsnorm_1", 2 * t * h * kBf16 + t * kF32);
    k.gemm("qkv", t, q3, h, 1, kBf16);
    k.memory("to_heads_qkv", 2 * t * q3 * kBf16);
    k.gemm("scores", rep * s, s, d, groups, kF32);
    k.memory("softmax", valid * kF32 + rows * s * kBf16);
    k.gemm("probs_v", rep * s, d, s, groups, kBf16);
    k.memory("to_tokens_o", 2 * t * q * kBf16);
    k.gemm("out_proj", t, h, q, 1, kBf16, true);
    k.memory("rmsnorm_2", 2 * t * h * kBf16 + t * kF32);
    k.gemm("gate_up", t, 2 * f, h, 1, kBf16);
    k.memory("swiglu", 3 * t * f * kBf16);
    k.gemm("down", t, h, f, 1, kBf16, true);
  } else {  // backward (backward()): data gradients in bf16, weight gradients in fp32
    k.gemm("d_act", t, f, h, 1, kBf16);
    k.gemm("dW_down", h, f, t, 1, kF32);
    k.memory("swiglu_bwd", 5 * t * f * kBf16);
    k.gemm("d_xn2", t, h, 2 * f, 1, kBf16);
    k.gemm("dW_gate_up", 2 * f, h, t, 1, kF32);
    k.memory("rmsnorm_2_bwd", 4 * t * h * kBf16 + t * kF32);
    k.memory("rmsnorm_2_dg", 2 * t * h * kBf16 + t * kF32);
    k.gemm("d_attn", t, q, h, 1, kBf16);
    k.gemm("dW_o", h, q, t, 1, kF32);
    k.memory("to_heads_do", 2 * t * q * kBf16);
    k.gemm("dV", s, d, rep * s, groups, kBf16);
    k.gemm("d_probs", rep * s, s, d, groups, kF32);
    k.memory("softmax_bwd", rows * s * (kBf16 + kF32 + kBf16));
    k.gemm("dQ", rep * s, d, s, groups, kBf16);
    k.gemm("dK", s, d, rep * s, groups, kBf16);
    k.memory("to_tokens_dqkv", 2 * t * q3 * kBf16);
    k.gemm("d_xn1", t, h, q3, 1, kBf16);
    k.gemm("dW_qkv", q3, h, t, 1, kF32);
    k.memory("rmsnorm_1_bwd", 4 * t * h * kBf16 + t * kF32);
    k.memory("rmsnorm_1_dg", 2 * t * h * kBf16 + t * kF32);
  }
}

}  // namespace

std::vector<BenchKernel> bench_layer_kernels(const LayerShape& shape) {
  Builder k;
  add_layer_kernels(k, shape, false);
  add_layer_kernels(k, shape, true);
  return k.out;
}

std::vector<BenchKernel> bench_step_kernels(const StepShape& shape) {
  const double t = shape.tokens(), h = shape.layer.hidden, v = shape.vocab;
  const double params = static_cast<double>(step_layout(shape).total);
  Builder k;
  k.memory("embedding", 2 * t * h * kBf16);
  for (int i = 0; i < shape.layers; ++i) add_layer_kernels(k, shape.layer, false);
  k.memory("final_rmsnorm", 2 * t * h * kBf16 + t * kF32);
  k.gemm("logits", t, v, h, 1, kF32);
  k.memory("cross_entropy", t * v * kF32);
  k.backward = true;
  k.memory("cross_entropy_bwd", t * v * (kF32 + kBf16));
  k.gemm("d_xnf", t, h, v, 1, kBf16);
  k.gemm("dW_head", v, h, t, 1, kF32);
  k.memory("final_rmsnorm_bwd", 3 * t * h * kBf16 + t * kF32);
  k.memory("final_rmsnorm_dg", 2 * t * h * kBf16 + t * kF32);
  for (int i = 0; i < shape.layers; ++i) add_layer_kernels(k, shape.layer, true);
  k.memory("zero_dW_embedding", v * h * kF32);
  k.memory("embedding_bwd", t * h * (kBf16 + 2 * kF32));
  k.memory("adamw", params * (7 * kF32 + kBf16));
  return k.out;
}

BenchPrediction predict_bench_kernels(const RooflineDevice& dev, const std::vector<BenchKernel>& kernels) {
  BenchPrediction p;
  for (const BenchKernel& k : kernels) {
    const double time_s = k.gemm ? gemm_time_s(dev, Precision::bf16, k.m, k.n, k.k, k.count, k.bytes)
                                 : k.bytes / dev.memory_bw_bytes_per_s;
    (k.backward ? p.bwd_s : p.fwd_s) += time_s;
    (k.gemm ? p.gemm_s : p.memory_s) += time_s;
  }
  return p;
}

}  // namespace gpuplan
