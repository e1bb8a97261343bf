// The simple (memory-bound) kernels of gpuplan-bench's transformer layer, in bf16 with fp32
// arithmetic: RMSNorm, head (un)packing for batched attention GEMMs, causal softmax, SwiGLU,
// each forward and backward. The GEMMs are cuBLASLt's (layer_bench.cpp). Default stream.
#pragma once

#include <cuda_bf16.h>

namespace gpuplan::cuda {

using Bf16 = __nv_bfloat16;

// y = x / sqrt(mean(x²) + eps) · g per row; rstd keeps 1 / sqrt(mean(x²) + eps) for backward.
void rmsnorm_forward(const Bf16* x, const Bf16* g, Bf16* y, float* rstd, int rows, int width);
// dx = dres + rstd·g·dy − rstd³·x·Σ(g·dy·x)/width (dres: the gradient arriving by the residual;
// null where there is none, as for a model's final norm).
void rmsnorm_backward(const Bf16* x, const Bf16* g, const float* rstd, const Bf16* dy, const Bf16* dres, Bf16* dx,
                      int rows, int width);
// dg[j] += Σ_rows dy·x·rstd (dg zeroed by the caller).
void rmsnorm_weight_grad(const Bf16* x, const float* rstd, const Bf16* dy, float* dg, int rows, int width);

// Token-major [batch·seq, width] with head h at columns col0 + h·head_dim ↔ head-major
// [batch, heads, seq, head_dim], so each KV group's query heads are one [group·seq, head_dim]
// matrix for a strided-batched GEMM.
void tokens_to_heads(const Bf16* tokens, int width, int col0, Bf16* heads, int batch, int nheads, int seq, int head_dim);
void heads_to_tokens(const Bf16* heads, Bf16* tokens, int width, int col0, int batch, int nheads, int seq, int head_dim);

// Rows of `seq` scores, row r being query position r % seq: softmax over keys 0..r % seq,
// zeros after (the causal mask).
void causal_softmax_forward(const float* scores, Bf16* probs, int rows, int seq);
// dscores = p · (dp − Σ p·dp) per row.
void causal_softmax_backward(const Bf16* probs, const float* dprobs, Bf16* dscores, int rows, int seq);

// act[t, f] = SiLU(gate) · up, with gate_up[t] = [gate (ffn) | up (ffn)].
void swiglu_forward(const Bf16* gate_up, Bf16* act, int tokens, int ffn);
void swiglu_backward(const Bf16* gate_up, const Bf16* dact, Bf16* dgate_up, int tokens, int ffn);

}  // namespace gpuplan::cuda
