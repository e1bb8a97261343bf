// The layer of layer_bench.h on caller-owned tensors. Attention works on head-major copies
// [batch, heads, seq, head_dim] in which the `rep` = heads / kv_heads query heads of one KV
// group form one [rep·seq, head_dim] matrix, so every attention GEMM is one strided-batched
// cuBLASLt call over batch·kv_heads groups, GQA included, and the backward's dK and dV sum over
// a group's query heads inside the GEMM (k = rep·seq). Attention is unfused: it computes the
// full seq × seq scores (the causal mask zeroes half) and keeps the probabilities, where
// FlashAttention would skip the masked half and recompute.
#include "layer_pass.h"

#include <cmath>

namespace gpuplan::cuda {
namespace {

std::size_t z(int v) { return static_cast<std::size_t>(v); }

MatmulSpec spec(Elem cd, bool a_transposed, bool b_transposed, std::size_t m, std::size_t n, std::size_t k) {
  return bf16_gemm(cd, a_transposed, b_transposed, m, n, k);
}

MatmulSpec batched(MatmulSpec s, std::size_t batch, std::size_t stride_a, std::size_t stride_b, std::size_t stride_c) {
  s.batch = static_cast<int>(batch);
  s.stride_a = static_cast<long long>(stride_a);
  s.stride_b = static_cast<long long>(stride_b);
  s.stride_c = static_cast<long long>(stride_c);
  return s;
}

}  // namespace

MatmulSpec bf16_gemm(Elem cd, bool a_transposed, bool b_transposed, std::size_t m, std::size_t n, std::size_t k) {
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

LayerDims::LayerDims(const LayerShape& shape)
    : b(z(shape.batch)), s(z(shape.seq)), t(b * s), h(z(shape.hidden)), nh(z(shape.heads)), nkv(z(shape.kv_heads)),
      d(z(shape.head_dim())), q(nh * d), kv(nkv * d), q3(q + 2 * kv), f(z(shape.ffn)), rep(nh / nkv) {}

LayerActivations::LayerActivations(const LayerDims& n)
    : xn1(n.t * n.h), rstd1(n.t), qh(n.t * n.q), kh(n.t * n.kv), vh(n.t * n.kv), probs(n.b * n.nh * n.s * n.s),
      attn(n.t * n.q), h1(n.t * n.h), xn2(n.t * n.h), rstd2(n.t), gu(n.t * 2 * n.f), act(n.t * n.f) {}

LayerPass::LayerPass(const LtContext& lt, const LayerShape& shape)
    : shape_(shape), n_(shape), scale_(static_cast<float>(1 / std::sqrt(static_cast<double>(n_.d)))),
      qkv_(n_.t * n_.q3), oh_(n_.t * n_.q), scores_(n_.b * n_.nh * n_.s * n_.s), dact_(n_.t * n_.f),
      dgu_(n_.t * 2 * n_.f), dxn2_(n_.t * n_.h), dh1_(n_.t * n_.h), dattn_(n_.t * n_.q), doh_(n_.t * n_.q),
      dvh_(n_.t * n_.kv), dscores_(scores_.count), dqh_(n_.t * n_.q), dkh_(n_.t * n_.kv), dqkv_(n_.t * n_.q3),
      dxn1_(n_.t * n_.h),
      // GEMM plans; "a [r,c]" is how A is stored (row-major), transposed when it is [k,m]
      qkv_mm_(lt, spec(Elem::bf16, false, true, n_.t, n_.q3, n_.h)),    // xn1 [T,H] · wqkvᵀ
      out_mm_(lt, spec(Elem::bf16, false, true, n_.t, n_.h, n_.q)),     // attn [T,Q] · woᵀ (+ x)
      gu_mm_(lt, spec(Elem::bf16, false, true, n_.t, 2 * n_.f, n_.h)),  // xn2 [T,H] · wguᵀ
      down_mm_(lt, spec(Elem::bf16, false, true, n_.t, n_.h, n_.f)),   // act [T,F] · wdᵀ (+ h1)
      // per KV group: scores [rep·S, S] = q [rep·S, d] · kᵀ; o [rep·S, d] = p [rep·S, S] · v [S, d]
      scores_mm_(lt, batched(spec(Elem::f32, false, true, n_.rep * n_.s, n_.s, n_.d), n_.b * n_.nkv,
                             n_.rep * n_.s * n_.d, n_.s * n_.d, n_.rep * n_.s * n_.s)),
      pv_mm_(lt, batched(spec(Elem::bf16, false, false, n_.rep * n_.s, n_.d, n_.s), n_.b * n_.nkv,
                         n_.rep * n_.s * n_.s, n_.s * n_.d, n_.rep * n_.s * n_.d)),
      // backward: data gradients dX = dY · W, weight gradients dW = dYᵀ · X (fp32, as kept for
      // the optimizer)
      dact_mm_(lt, spec(Elem::bf16, false, false, n_.t, n_.f, n_.h)),
      dwd_mm_(lt, spec(Elem::f32, true, false, n_.h, n_.f, n_.t)),
      dxn2_mm_(lt, spec(Elem::bf16, false, false, n_.t, n_.h, 2 * n_.f)),
      dwgu_mm_(lt, spec(Elem::f32, true, false, 2 * n_.f, n_.h, n_.t)),
      dattn_mm_(lt, spec(Elem::bf16, false, false, n_.t, n_.q, n_.h)),
      dwo_mm_(lt, spec(Elem::f32, true, false, n_.h, n_.q, n_.t)),
      dxn1_mm_(lt, spec(Elem::bf16, false, false, n_.t, n_.h, n_.q3)),
      dwqkv_mm_(lt, spec(Elem::f32, true, false, n_.q3, n_.h, n_.t)),
      // per KV group: dv [S, d] = pᵀ · do; dp [rep·S, S] = do · vᵀ; dq = ds · k; dk [S, d] = dsᵀ · q
      dv_mm_(lt, batched(spec(Elem::bf16, true, false, n_.s, n_.d, n_.rep * n_.s), n_.b * n_.nkv,
                         n_.rep * n_.s * n_.s, n_.rep * n_.s * n_.d, n_.s * n_.d)),
      dprobs_mm_(lt, batched(spec(Elem::f32, false, true, n_.rep * n_.s, n_.s, n_.d), n_.b * n_.nkv,
                             n_.rep * n_.s * n_.d, n_.s * n_.d, n_.rep * n_.s * n_.s)),
      dq_mm_(lt, batched(spec(Elem::bf16, false, false, n_.rep * n_.s, n_.d, n_.s), n_.b * n_.nkv,
                         n_.rep * n_.s * n_.s, n_.s * n_.d, n_.rep * n_.s * n_.d)),
      dk_mm_(lt, batched(spec(Elem::bf16, true, false, n_.s, n_.d, n_.rep * n_.s), n_.b * n_.nkv,
                         n_.rep * n_.s * n_.s, n_.rep * n_.s * n_.d, n_.s * n_.d)) {}

void LayerPass::forward(const LayerWeightPtrs& w, const Bf16* x, LayerActivations& a, Bf16* out) {
  const int t = static_cast<int>(n_.t), h = static_cast<int>(n_.h);
  const int b = static_cast<int>(n_.b), s = static_cast<int>(n_.s), d = static_cast<int>(n_.d);
  const int q = static_cast<int>(n_.q), kv = static_cast<int>(n_.kv), q3 = static_cast<int>(n_.q3);
  rmsnorm_forward(x, w.norm1, a.xn1.get(), a.rstd1.get(), t, h);
  qkv_mm_.run(a.xn1.get(), w.wqkv, qkv_.get());
  tokens_to_heads(qkv_.get(), q3, 0, a.qh.get(), b, shape_.heads, s, d);
  tokens_to_heads(qkv_.get(), q3, q, a.kh.get(), b, shape_.kv_heads, s, d);
  tokens_to_heads(qkv_.get(), q3, q + kv, a.vh.get(), b, shape_.kv_heads, s, d);
  scores_mm_.run(a.qh.get(), a.kh.get(), scores_.get(), scale_);
  causal_softmax_forward(scores_.get(), a.probs.get(), b * shape_.heads * s, s);
  pv_mm_.run(a.probs.get(), a.vh.get(), oh_.get());
  heads_to_tokens(oh_.get(), a.attn.get(), q, 0, b, shape_.heads, s, d);
  out_mm_.run(a.attn.get(), w.wo, a.h1.get(), 1, 1, x);  // h1 = x + attention
  rmsnorm_forward(a.h1.get(), w.norm2, a.xn2.get(), a.rstd2.get(), t, h);
  gu_mm_.run(a.xn2.get(), w.wgu, a.gu.get());
  swiglu_forward(a.gu.get(), a.act.get(), t, static_cast<int>(n_.f));
  down_mm_.run(a.act.get(), w.wd, out, 1, 1, a.h1.get());  // out = h1 + MLP
}

void LayerPass::backward(const LayerWeightPtrs& w, const Bf16* x, const LayerActivations& a, const Bf16* dout,
                         const LayerGradPtrs& grads, Bf16* dx) {
  const int t = static_cast<int>(n_.t), h = static_cast<int>(n_.h);
  const int b = static_cast<int>(n_.b), s = static_cast<int>(n_.s), d = static_cast<int>(n_.d);
  const int q = static_cast<int>(n_.q), kv = static_cast<int>(n_.kv), q3 = static_cast<int>(n_.q3);
  // MLP, then its norm; dout also flows straight into dh1 through the residual.
  dact_mm_.run(dout, w.wd, dact_.get());
  dwd_mm_.run(dout, a.act.get(), grads.wd);
  swiglu_backward(a.gu.get(), dact_.get(), dgu_.get(), t, static_cast<int>(n_.f));
  dxn2_mm_.run(dgu_.get(), w.wgu, dxn2_.get());
  dwgu_mm_.run(dgu_.get(), a.xn2.get(), grads.wgu);
  rmsnorm_backward(a.h1.get(), w.norm2, a.rstd2.get(), dxn2_.get(), dout, dh1_.get(), t, h);
  GP_CUDA(cudaMemsetAsync(grads.norm2, 0, n_.h * sizeof(float), nullptr));
  rmsnorm_weight_grad(a.h1.get(), a.rstd2.get(), dxn2_.get(), grads.norm2, t, h);
  // Attention. dprobs reuses the scores buffer: backward never reads the scores.
  dattn_mm_.run(dh1_.get(), w.wo, dattn_.get());
  dwo_mm_.run(dh1_.get(), a.attn.get(), grads.wo);
  tokens_to_heads(dattn_.get(), q, 0, doh_.get(), b, shape_.heads, s, d);
  dv_mm_.run(a.probs.get(), doh_.get(), dvh_.get());
  float* dprobs = scores_.get();
  dprobs_mm_.run(doh_.get(), a.vh.get(), dprobs);
  causal_softmax_backward(a.probs.get(), dprobs, dscores_.get(), b * shape_.heads * s, s);
  dq_mm_.run(dscores_.get(), a.kh.get(), dqh_.get(), scale_);
  dk_mm_.run(dscores_.get(), a.qh.get(), dkh_.get(), scale_);
  heads_to_tokens(dqh_.get(), dqkv_.get(), q3, 0, b, shape_.heads, s, d);
  heads_to_tokens(dkh_.get(), dqkv_.get(), q3, q, b, shape_.kv_heads, s, d);
  heads_to_tokens(dvh_.get(), dqkv_.get(), q3, q + kv, b, shape_.kv_heads, s, d);
  dxn1_mm_.run(dqkv_.get(), w.wqkv, dxn1_.get());
  dwqkv_mm_.run(dqkv_.get(), a.xn1.get(), grads.wqkv);
  rmsnorm_backward(x, w.norm1, a.rstd1.get(), dxn1_.get(), dh1_.get(), dx, t, h);
  GP_CUDA(cudaMemsetAsync(grads.norm1, 0, n_.h * sizeof(float), nullptr));
  rmsnorm_weight_grad(x, a.rstd1.get(), dxn1_.get(), grads.norm1, t, h);
}

}  // namespace gpuplan::cuda
