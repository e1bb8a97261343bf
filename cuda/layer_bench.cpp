// The layer of layer_bench.h. Shapes: T = batch·seq tokens, H hidden, Q = heads·head_dim,
// KV = kv_heads·head_dim, F ffn. Activations are token-major [T, ·]; attention works on
// head-major copies [batch, heads, seq, head_dim] in which the `rep` = heads / kv_heads query
// heads of one KV group form one [rep·seq, head_dim] matrix, so every attention GEMM is one
// strided-batched cuBLASLt call over batch·kv_heads groups, GQA included, and the backward's
// dK and dV sum over a group's query heads inside the GEMM (k = rep·seq).
// Attention is unfused: it computes the full seq × seq scores (the causal mask zeroes half)
// and keeps them, where FlashAttention would skip the masked half and recompute.
#include "layer_bench.h"

#include <cmath>

#include <fmt/format.h>

#include "calibration/layer_reference.h"
#include "cuda_util.h"
#include "layer_kernels.h"
#include "lt_matmul.h"
#include "random_fill.h"

namespace gpuplan::cuda {
namespace {

std::size_t z(int v) { return static_cast<std::size_t>(v); }

// A device tensor poisoned with NaN (0xFF bytes) from the start, so anything a kernel fails to
// write shows up as a non-finite output.
template <typename T>
struct Tensor {
  DeviceBuffer<T> buffer;
  std::size_t count;
  explicit Tensor(std::size_t n) : buffer(n), count(n) { GP_CUDA(cudaMemset(buffer.ptr, 0xFF, n * sizeof(T))); }
  T* get() const { return buffer.ptr; }
};

MatmulSpec spec(Elem cd, bool a_transposed, bool b_transposed, std::size_t m, std::size_t n, std::size_t k) {
  MatmulSpec s;
  s.ab = Elem::bf16;
  s.cd = cd;
  s.a_transposed = a_transposed;
  s.b_transposed = b_transposed;
  s.m = static_cast<int>(m);
  s.n = static_cast<int>(n);
  s.k = static_cast<int>(k);
  return s;
}

MatmulSpec batched(MatmulSpec s, std::size_t batch, std::size_t stride_a, std::size_t stride_b, std::size_t stride_c) {
  s.batch = static_cast<int>(batch);
  s.stride_a = static_cast<long long>(stride_a);
  s.stride_b = static_cast<long long>(stride_b);
  s.stride_c = static_cast<long long>(stride_c);
  return s;
}

struct Dims {
  std::size_t b, s, t, h, nh, nkv, d, q, kv, q3, f, rep;
  explicit Dims(const LayerShape& shape)
      : b(z(shape.batch)), s(z(shape.seq)), t(b * s), h(z(shape.hidden)), nh(z(shape.heads)),
        nkv(z(shape.kv_heads)), d(z(shape.head_dim())), q(nh * d), kv(nkv * d), q3(q + 2 * kv), f(z(shape.ffn)),
        rep(nh / nkv) {}
};

class TransformerLayer {
 public:
  explicit TransformerLayer(const LayerShape& shape)
      : shape_(shape), n_(shape), scale_(static_cast<float>(1 / std::sqrt(static_cast<double>(n_.d)))),
        // inputs and weights
        x_(n_.t * n_.h), wqkv_(n_.q3 * n_.h), wo_(n_.h * n_.q), wgu_(2 * n_.f * n_.h), wd_(n_.h * n_.f),
        g1_(n_.h), g2_(n_.h), dout_(n_.t * n_.h),
        // forward activations (kept for backward)
        xn1_(n_.t * n_.h), rstd1_(n_.t), qkv_(n_.t * n_.q3), qh_(n_.t * n_.q), kh_(n_.t * n_.kv), vh_(n_.t * n_.kv),
        scores_(n_.b * n_.nh * n_.s * n_.s), probs_(scores_.count), oh_(n_.t * n_.q), attn_(n_.t * n_.q),
        h1_(n_.t * n_.h), xn2_(n_.t * n_.h), rstd2_(n_.t), gu_(n_.t * 2 * n_.f), act_(n_.t * n_.f), out_(n_.t * n_.h),
        // backward
        dact_(n_.t * n_.f), dgu_(n_.t * 2 * n_.f), dxn2_(n_.t * n_.h), dh1_(n_.t * n_.h), dattn_(n_.t * n_.q),
        doh_(n_.t * n_.q), dvh_(n_.t * n_.kv), dscores_(scores_.count), dqh_(n_.t * n_.q), dkh_(n_.t * n_.kv),
        dqkv_(n_.t * n_.q3), dxn1_(n_.t * n_.h), dx_(n_.t * n_.h), dwqkv_(wqkv_.count), dwo_(wo_.count),
        dwgu_(wgu_.count), dwd_(wd_.count), dg1_(n_.h), dg2_(n_.h),
        // GEMM plans; "a [r,c]" is how A is stored (row-major), transposed when it is [k,m]
        qkv_mm_(lt_, spec(Elem::bf16, false, true, n_.t, n_.q3, n_.h)),    // xn1 [T,H] · wqkvᵀ
        out_mm_(lt_, spec(Elem::bf16, false, true, n_.t, n_.h, n_.q)),     // attn [T,Q] · woᵀ (+ x)
        gu_mm_(lt_, spec(Elem::bf16, false, true, n_.t, 2 * n_.f, n_.h)),  // xn2 [T,H] · wguᵀ
        down_mm_(lt_, spec(Elem::bf16, false, true, n_.t, n_.h, n_.f)),   // act [T,F] · wdᵀ (+ h1)
        // per KV group: scores [rep·S, S] = q [rep·S, d] · kᵀ; o [rep·S, d] = p [rep·S, S] · v [S, d]
        scores_mm_(lt_, batched(spec(Elem::f32, false, true, n_.rep * n_.s, n_.s, n_.d), n_.b * n_.nkv,
                                n_.rep * n_.s * n_.d, n_.s * n_.d, n_.rep * n_.s * n_.s)),
        pv_mm_(lt_, batched(spec(Elem::bf16, false, false, n_.rep * n_.s, n_.d, n_.s), n_.b * n_.nkv,
                            n_.rep * n_.s * n_.s, n_.s * n_.d, n_.rep * n_.s * n_.d)),
        // backward: data gradients dX = dY · W, weight gradients dW = dYᵀ · X (fp32, as kept for
        // the optimizer)
        dact_mm_(lt_, spec(Elem::bf16, false, false, n_.t, n_.f, n_.h)),
        dwd_mm_(lt_, spec(Elem::f32, true, false, n_.h, n_.f, n_.t)),
        dxn2_mm_(lt_, spec(Elem::bf16, false, false, n_.t, n_.h, 2 * n_.f)),
        dwgu_mm_(lt_, spec(Elem::f32, true, false, 2 * n_.f, n_.h, n_.t)),
        dattn_mm_(lt_, spec(Elem::bf16, false, false, n_.t, n_.q, n_.h)),
        dwo_mm_(lt_, spec(Elem::f32, true, false, n_.h, n_.q, n_.t)),
        dxn1_mm_(lt_, spec(Elem::bf16, false, false, n_.t, n_.h, n_.q3)),
        dwqkv_mm_(lt_, spec(Elem::f32, true, false, n_.q3, n_.h, n_.t)),
        // per KV group: dv [S, d] = pᵀ · do; dp [rep·S, S] = do · vᵀ; dq = ds · k; dk [S, d] = dsᵀ · q
        dv_mm_(lt_, batched(spec(Elem::bf16, true, false, n_.s, n_.d, n_.rep * n_.s), n_.b * n_.nkv,
                            n_.rep * n_.s * n_.s, n_.rep * n_.s * n_.d, n_.s * n_.d)),
        dprobs_mm_(lt_, batched(spec(Elem::f32, false, true, n_.rep * n_.s, n_.s, n_.d), n_.b * n_.nkv,
                                n_.rep * n_.s * n_.d, n_.s * n_.d, n_.rep * n_.s * n_.s)),
        dq_mm_(lt_, batched(spec(Elem::bf16, false, false, n_.rep * n_.s, n_.d, n_.s), n_.b * n_.nkv,
                            n_.rep * n_.s * n_.s, n_.s * n_.d, n_.rep * n_.s * n_.d)),
        dk_mm_(lt_, batched(spec(Elem::bf16, true, false, n_.s, n_.d, n_.rep * n_.s), n_.b * n_.nkv,
                            n_.rep * n_.s * n_.s, n_.rep * n_.s * n_.d, n_.s * n_.d)) {}

  // Random inputs, weights around 1/sqrt(fan-in), norm weights around 1, and a random output
  // gradient; each tensor reproducible on the host from its FillSpec.
  void fill(unsigned seed) {
    for (auto& [tensor, count, fill_spec] : inputs(seed)) fill_uniform(tensor, Elem::bf16, count, fill_spec);
  }

  struct Input {
    Bf16* tensor;
    std::size_t count;
    FillSpec fill;
  };
  std::vector<Input> inputs(unsigned seed) const {
    return {{x_.get(), x_.count, {seed, 1, 0}},
            {wqkv_.get(), wqkv_.count, {seed + 1, fan_in_scale(static_cast<int>(n_.h)), 0}},
            {wo_.get(), wo_.count, {seed + 2, fan_in_scale(static_cast<int>(n_.q)), 0}},
            {wgu_.get(), wgu_.count, {seed + 3, fan_in_scale(static_cast<int>(n_.h)), 0}},
            {wd_.get(), wd_.count, {seed + 4, fan_in_scale(static_cast<int>(n_.f)), 0}},
            {g1_.get(), g1_.count, {seed + 5, 0.125f, 1}},
            {g2_.get(), g2_.count, {seed + 6, 0.125f, 1}},
            {dout_.get(), dout_.count, {seed + 7, 1, 0}}};
  }

  void forward() {
    const int t = static_cast<int>(n_.t), h = static_cast<int>(n_.h);
    const int b = static_cast<int>(n_.b), s = static_cast<int>(n_.s), d = static_cast<int>(n_.d);
    const int q = static_cast<int>(n_.q), kv = static_cast<int>(n_.kv), q3 = static_cast<int>(n_.q3);
    rmsnorm_forward(x_.get(), g1_.get(), xn1_.get(), rstd1_.get(), t, h);
    qkv_mm_.run(xn1_.get(), wqkv_.get(), qkv_.get());
    tokens_to_heads(qkv_.get(), q3, 0, qh_.get(), b, shape_.heads, s, d);
    tokens_to_heads(qkv_.get(), q3, q, kh_.get(), b, shape_.kv_heads, s, d);
    tokens_to_heads(qkv_.get(), q3, q + kv, vh_.get(), b, shape_.kv_heads, s, d);
    scores_mm_.run(qh_.get(), kh_.get(), scores_.get(), scale_);
    causal_softmax_forward(scores_.get(), probs_.get(), b * shape_.heads * s, s);
    pv_mm_.run(probs_.get(), vh_.get(), oh_.get());
    heads_to_tokens(oh_.get(), attn_.get(), q, 0, b, shape_.heads, s, d);
    out_mm_.run(attn_.get(), wo_.get(), h1_.get(), 1, 1, x_.get());  // h1 = x + attention
    rmsnorm_forward(h1_.get(), g2_.get(), xn2_.get(), rstd2_.get(), t, h);
    gu_mm_.run(xn2_.get(), wgu_.get(), gu_.get());
    swiglu_forward(gu_.get(), act_.get(), t, static_cast<int>(n_.f));
    down_mm_.run(act_.get(), wd_.get(), out_.get(), 1, 1, h1_.get());  // out = h1 + MLP
  }

  void backward() {
    const int t = static_cast<int>(n_.t), h = static_cast<int>(n_.h);
    const int b = static_cast<int>(n_.b), s = static_cast<int>(n_.s), d = static_cast<int>(n_.d);
    const int q = static_cast<int>(n_.q), kv = static_cast<int>(n_.kv), q3 = static_cast<int>(n_.q3);
    // MLP, then its norm; dout also flows straight into dh1 through the residual.
    dact_mm_.run(dout_.get(), wd_.get(), dact_.get());
    dwd_mm_.run(dout_.get(), act_.get(), dwd_.get());
    swiglu_backward(gu_.get(), dact_.get(), dgu_.get(), t, static_cast<int>(n_.f));
    dxn2_mm_.run(dgu_.get(), wgu_.get(), dxn2_.get());
    dwgu_mm_.run(dgu_.get(), xn2_.get(), dwgu_.get());
    rmsnorm_backward(h1_.get(), g2_.get(), rstd2_.get(), dxn2_.get(), dout_.get(), dh1_.get(), t, h);
    GP_CUDA(cudaMemsetAsync(dg2_.get(), 0, dg2_.count * sizeof(float), nullptr));
    rmsnorm_weight_grad(h1_.get(), rstd2_.get(), dxn2_.get(), dg2_.get(), t, h);
    // Attention. dprobs reuses the scores buffer: backward never reads the scores.
    dattn_mm_.run(dh1_.get(), wo_.get(), dattn_.get());
    dwo_mm_.run(dh1_.get(), attn_.get(), dwo_.get());
    tokens_to_heads(dattn_.get(), q, 0, doh_.get(), b, shape_.heads, s, d);
    dv_mm_.run(probs_.get(), doh_.get(), dvh_.get());
    float* dprobs = scores_.get();
    dprobs_mm_.run(doh_.get(), vh_.get(), dprobs);
    causal_softmax_backward(probs_.get(), dprobs, dscores_.get(), b * shape_.heads * s, s);
    dq_mm_.run(dscores_.get(), kh_.get(), dqh_.get(), scale_);
    dk_mm_.run(dscores_.get(), qh_.get(), dkh_.get(), scale_);
    heads_to_tokens(dqh_.get(), dqkv_.get(), q3, 0, b, shape_.heads, s, d);
    heads_to_tokens(dkh_.get(), dqkv_.get(), q3, q, b, shape_.kv_heads, s, d);
    heads_to_tokens(dvh_.get(), dqkv_.get(), q3, q + kv, b, shape_.kv_heads, s, d);
    dxn1_mm_.run(dqkv_.get(), wqkv_.get(), dxn1_.get());
    dwqkv_mm_.run(dqkv_.get(), xn1_.get(), dwqkv_.get());
    rmsnorm_backward(x_.get(), g1_.get(), rstd1_.get(), dxn1_.get(), dh1_.get(), dx_.get(), t, h);
    GP_CUDA(cudaMemsetAsync(dg1_.get(), 0, dg1_.count * sizeof(float), nullptr));
    rmsnorm_weight_grad(x_.get(), rstd1_.get(), dxn1_.get(), dg1_.get(), t, h);
  }

  // The output and every gradient: name, pointer, element type, count.
  struct Result {
    const char* name;
    const void* data;
    Elem elem;
    std::size_t count;
  };
  std::vector<Result> results() const {
    return {{"out", out_.get(), Elem::bf16, out_.count},       {"dx", dx_.get(), Elem::bf16, dx_.count},
            {"dW_qkv", dwqkv_.get(), Elem::f32, dwqkv_.count}, {"dW_o", dwo_.get(), Elem::f32, dwo_.count},
            {"dW_gate_up", dwgu_.get(), Elem::f32, dwgu_.count}, {"dW_down", dwd_.get(), Elem::f32, dwd_.count},
            {"dg_attn_norm", dg1_.get(), Elem::f32, dg1_.count}, {"dg_mlp_norm", dg2_.get(), Elem::f32, dg2_.count}};
  }

 private:
  LayerShape shape_;
  Dims n_;
  float scale_;  // 1/sqrt(head_dim), applied by the scores GEMM's alpha (and so to dq, dk)
  LtContext lt_;
  Tensor<Bf16> x_, wqkv_, wo_, wgu_, wd_, g1_, g2_, dout_;
  Tensor<Bf16> xn1_;
  Tensor<float> rstd1_;
  Tensor<Bf16> qkv_, qh_, kh_, vh_;
  Tensor<float> scores_;
  Tensor<Bf16> probs_, oh_, attn_, h1_, xn2_;
  Tensor<float> rstd2_;
  Tensor<Bf16> gu_, act_, out_;
  Tensor<Bf16> dact_, dgu_, dxn2_, dh1_, dattn_, doh_, dvh_, dscores_, dqh_, dkh_, dqkv_, dxn1_, dx_;
  Tensor<float> dwqkv_, dwo_, dwgu_, dwd_, dg1_, dg2_;
  LtMatmul qkv_mm_, out_mm_, gu_mm_, down_mm_, scores_mm_, pv_mm_;
  LtMatmul dact_mm_, dwd_mm_, dxn2_mm_, dwgu_mm_, dattn_mm_, dwo_mm_, dxn1_mm_, dwqkv_mm_;
  LtMatmul dv_mm_, dprobs_mm_, dq_mm_, dk_mm_;
};

std::vector<double> download(const void* data, Elem elem, std::size_t count) {
  std::vector<double> out(count);
  if (elem == Elem::f32) {
    std::vector<float> host(count);
    GP_CUDA(cudaMemcpy(host.data(), data, count * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < count; ++i) out[i] = host[i];
  } else {
    std::vector<Bf16> host(count);
    GP_CUDA(cudaMemcpy(host.data(), data, count * sizeof(Bf16), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < count; ++i) out[i] = __bfloat162float(host[i]);
  }
  return out;
}

std::vector<double> host_copy(const FillSpec& fill, std::size_t count) {
  std::vector<double> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = stored_uniform(Elem::bf16, i, fill);
  return out;
}

}  // namespace

LayerRun check_transformer_layer(const LayerShape& shape, unsigned seed) {
  TransformerLayer layer(shape);
  layer.fill(seed);
  layer.forward();
  layer.backward();
  GP_CUDA(cudaDeviceSynchronize());

  // The same inputs on the host, exactly as the device holds them.
  const auto in = layer.inputs(seed);
  const std::vector<double> x = host_copy(in[0].fill, in[0].count);
  LayerWeights w;
  w.wqkv = host_copy(in[1].fill, in[1].count);
  w.wo = host_copy(in[2].fill, in[2].count);
  w.wgu = host_copy(in[3].fill, in[3].count);
  w.wd = host_copy(in[4].fill, in[4].count);
  w.norm1 = host_copy(in[5].fill, in[5].count);
  w.norm2 = host_copy(in[6].fill, in[6].count);
  const std::vector<double> dout = host_copy(in[7].fill, in[7].count);

  const auto results = layer.results();
  auto get = [&](std::size_t idx) { return download(results[idx].data, results[idx].elem, results[idx].count); };
  LayerGradients grads;
  grads.dx = get(1);
  grads.dw.wqkv = get(2);
  grads.dw.wo = get(3);
  grads.dw.wgu = get(4);
  grads.dw.wd = get(5);
  grads.dw.norm1 = get(6);
  grads.dw.norm2 = get(7);
  const LayerCheck check = check_layer_against_reference(shape, x, w, dout, get(0), grads);
  LayerRun run;
  run.correct = check.correct;
  run.check = check.check;
  return run;
}

LayerRun time_transformer_layer(const LayerShape& shape, int runs, unsigned seed) {
  TransformerLayer layer(shape);
  layer.fill(seed);
  LayerRun run;
  run.fwd_times_s = time_runs([&] { layer.forward(); }, runs);
  run.bwd_times_s = time_runs([&] { layer.backward(); }, runs);
  unsigned long long bad = 0;
  std::string where;
  for (const auto& r : layer.results()) {
    const unsigned long long n = count_nonfinite(r.data, r.elem, r.count);
    if (n > 0) where += fmt::format(" {} in {}", n, r.name);
    bad += n;
  }
  run.correct = bad == 0;
  run.check = bad == 0 ? "output and every gradient finite" : "non-finite values:" + where;
  return run;
}

}  // namespace gpuplan::cuda
