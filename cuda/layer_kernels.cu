// Kernels of layer_kernels.h. One block per row where a row needs a reduction (norms,
// softmax); grid-stride loops over elements otherwise.
#include <cuda_runtime.h>

#include "launch.h"
#include "layer_kernels.h"

namespace gpuplan::cuda {
namespace {

constexpr int kBlock = kLaunchBlock;
constexpr float kNormEps = 1e-5f;  // calibration/layer_reference.h's kLayerNormEps

// Sum (or max) over the block; every thread gets the result. blockDim.x == kBlock.
template <bool kMax>
__device__ float block_reduce(float v) {
  __shared__ float partial[kBlock / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, v, offset);
    v = kMax ? fmaxf(v, other) : v + other;
  }
  __syncthreads();  // partial may still be read from a previous call
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  float r = partial[0];
  for (int w = 1; w < kBlock / 32; ++w) r = kMax ? fmaxf(r, partial[w]) : r + partial[w];
  return r;
}

__global__ void rmsnorm_forward_kernel(const Bf16* x, const Bf16* g, Bf16* y, float* rstd, int width) {
  const std::size_t row = blockIdx.x;
  const Bf16* xr = x + row * width;
  float sum_sq = 0;
  for (int i = threadIdx.x; i < width; i += kBlock) {
    const float v = __bfloat162float(xr[i]);
    sum_sq += v * v;
  }
  const float r = rsqrtf(block_reduce<false>(sum_sq) / width + kNormEps);
  if (threadIdx.x == 0) rstd[row] = r;
  for (int i = threadIdx.x; i < width; i += kBlock) {
    y[row * width + i] = __float2bfloat16(__bfloat162float(xr[i]) * r * __bfloat162float(g[i]));
  }
}

// y_j = x_j·r·g_j with r = (mean(x²) + eps)^(-1/2), so ∂r/∂x_i = −r³·x_i / width and
// dx_i = r·g_i·dy_i − r³·x_i/width · Σ_j g_j·dy_j·x_j.
__global__ void rmsnorm_backward_kernel(const Bf16* x, const Bf16* g, const float* rstd, const Bf16* dy,
                                        const Bf16* dres, Bf16* dx, int width) {
  const std::size_t row = blockIdx.x;
  const std::size_t base = row * width;
  float dot = 0;
  for (int i = threadIdx.x; i < width; i += kBlock) {
    dot += __bfloat162float(g[i]) * __bfloat162float(dy[base + i]) * __bfloat162float(x[base + i]);
  }
  dot = block_reduce<false>(dot);
  const float r = rstd[row];
  const float c = r * r * r * dot / width;
  for (int i = threadIdx.x; i < width; i += kBlock) {
    const float res = dres ? __bfloat162float(dres[base + i]) : 0.0f;
    const float v =
        r * __bfloat162float(g[i]) * __bfloat162float(dy[base + i]) - c * __bfloat162float(x[base + i]) + res;
    dx[base + i] = __float2bfloat16(v);
  }
}

// Thread per column over one chunk of rows, then one atomic per column and chunk.
__global__ void rmsnorm_weight_grad_kernel(const Bf16* x, const float* rstd, const Bf16* dy, float* dg, int rows,
                                           int width, int rows_per_chunk) {
  const int col = blockIdx.x * kBlock + threadIdx.x;
  if (col >= width) return;
  const int first = blockIdx.y * rows_per_chunk;
  const int last = min(rows, first + rows_per_chunk);
  float acc = 0;
  for (int row = first; row < last; ++row) {
    const std::size_t at = static_cast<std::size_t>(row) * width + col;
    acc += __bfloat162float(dy[at]) * __bfloat162float(x[at]) * rstd[row];
  }
  atomicAdd(dg + col, acc);
}

// Element idx of the head-major tensor [batch, heads, seq, head_dim] and its token-major twin.
template <bool kToHeads>
__global__ void repack_kernel(const Bf16* src, Bf16* dst, int width, int col0, int batch, int nheads, int seq,
                              int head_dim) {
  const std::size_t total = static_cast<std::size_t>(batch) * nheads * seq * head_dim;
  for (std::size_t idx = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; idx < total; idx += std::size_t(gridDim.x) * blockDim.x) {
    const int j = static_cast<int>(idx % head_dim);
    const std::size_t rest = idx / head_dim;
    const int s = static_cast<int>(rest % seq);
    const std::size_t bh = rest / seq;
    const int h = static_cast<int>(bh % nheads);
    const std::size_t b = bh / nheads;
    const std::size_t token_at = (b * seq + s) * width + col0 + static_cast<std::size_t>(h) * head_dim + j;
    if (kToHeads) dst[idx] = src[token_at];
    else dst[token_at] = src[idx];
  }
}

__global__ void causal_softmax_forward_kernel(const float* scores, Bf16* probs, int seq) {
  const std::size_t row = blockIdx.x;
  const int valid = static_cast<int>(row % seq) + 1;  // keys 0..position
  const float* in = scores + row * seq;
  Bf16* out = probs + row * seq;
  float max_score = -INFINITY;
  for (int i = threadIdx.x; i < valid; i += kBlock) max_score = fmaxf(max_score, in[i]);
  max_score = block_reduce<true>(max_score);
  float sum = 0;
  for (int i = threadIdx.x; i < valid; i += kBlock) sum += __expf(in[i] - max_score);
  const float inv = 1.0f / block_reduce<false>(sum);
  for (int i = threadIdx.x; i < seq; i += kBlock) {
    out[i] = __float2bfloat16(i < valid ? __expf(in[i] - max_score) * inv : 0.0f);
  }
}

__global__ void causal_softmax_backward_kernel(const Bf16* probs, const float* dprobs, Bf16* dscores, int seq) {
  const std::size_t row = blockIdx.x;
  const Bf16* p = probs + row * seq;
  const float* dp = dprobs + row * seq;
  float dot = 0;
  for (int i = threadIdx.x; i < seq; i += kBlock) dot += __bfloat162float(p[i]) * dp[i];
  dot = block_reduce<false>(dot);
  for (int i = threadIdx.x; i < seq; i += kBlock) {
    dscores[row * seq + i] = __float2bfloat16(__bfloat162float(p[i]) * (dp[i] - dot));  // 0 where masked (p = 0)
  }
}

__device__ inline float sigmoid(float v) { return 1.0f / (1.0f + __expf(-v)); }

__global__ void swiglu_forward_kernel(const Bf16* gate_up, Bf16* act, int tokens, int ffn) {
  const std::size_t total = static_cast<std::size_t>(tokens) * ffn;
  for (std::size_t idx = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; idx < total; idx += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t t = idx / ffn, f = idx % ffn;
    const float gate = __bfloat162float(gate_up[t * 2 * ffn + f]);
    const float up = __bfloat162float(gate_up[t * 2 * ffn + ffn + f]);
    act[idx] = __float2bfloat16(gate * sigmoid(gate) * up);
  }
}

// d SiLU(g)/dg = s·(1 + g·(1 − s)) with s = sigmoid(g).
__global__ void swiglu_backward_kernel(const Bf16* gate_up, const Bf16* dact, Bf16* dgate_up, int tokens, int ffn) {
  const std::size_t total = static_cast<std::size_t>(tokens) * ffn;
  for (std::size_t idx = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; idx < total; idx += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t t = idx / ffn, f = idx % ffn;
    const float gate = __bfloat162float(gate_up[t * 2 * ffn + f]);
    const float up = __bfloat162float(gate_up[t * 2 * ffn + ffn + f]);
    const float s = sigmoid(gate);
    const float d = __bfloat162float(dact[idx]);
    dgate_up[t * 2 * ffn + f] = __float2bfloat16(d * up * s * (1.0f + gate * (1.0f - s)));
    dgate_up[t * 2 * ffn + ffn + f] = __float2bfloat16(d * gate * s);
  }
}

}  // namespace

void rmsnorm_forward(const Bf16* x, const Bf16* g, Bf16* y, float* rstd, int rows, int width) {
  rmsnorm_forward_kernel<<<rows, kBlock>>>(x, g, y, rstd, width);
  check_launch();
}

void rmsnorm_backward(const Bf16* x, const Bf16* g, const float* rstd, const Bf16* dy, const Bf16* dres, Bf16* dx,
                      int rows, int width) {
  rmsnorm_backward_kernel<<<rows, kBlock>>>(x, g, rstd, dy, dres, dx, width);
  check_launch();
}

void rmsnorm_weight_grad(const Bf16* x, const float* rstd, const Bf16* dy, float* dg, int rows, int width) {
  constexpr int kRowsPerChunk = 32;
  const dim3 grid((width + kBlock - 1) / kBlock, (rows + kRowsPerChunk - 1) / kRowsPerChunk);
  rmsnorm_weight_grad_kernel<<<grid, kBlock>>>(x, rstd, dy, dg, rows, width, kRowsPerChunk);
  check_launch();
}

void tokens_to_heads(const Bf16* tokens, int width, int col0, Bf16* heads, int batch, int nheads, int seq, int head_dim) {
  const std::size_t total = static_cast<std::size_t>(batch) * nheads * seq * head_dim;
  repack_kernel<true><<<elementwise_grid(total), kBlock>>>(tokens, heads, width, col0, batch, nheads, seq, head_dim);
  check_launch();
}

void heads_to_tokens(const Bf16* heads, Bf16* tokens, int width, int col0, int batch, int nheads, int seq, int head_dim) {
  const std::size_t total = static_cast<std::size_t>(batch) * nheads * seq * head_dim;
  repack_kernel<false><<<elementwise_grid(total), kBlock>>>(heads, tokens, width, col0, batch, nheads, seq, head_dim);
  check_launch();
}

void causal_softmax_forward(const float* scores, Bf16* probs, int rows, int seq) {
  causal_softmax_forward_kernel<<<rows, kBlock>>>(scores, probs, seq);
  check_launch();
}

void causal_softmax_backward(const Bf16* probs, const float* dprobs, Bf16* dscores, int rows, int seq) {
  causal_softmax_backward_kernel<<<rows, kBlock>>>(probs, dprobs, dscores, seq);
  check_launch();
}

void swiglu_forward(const Bf16* gate_up, Bf16* act, int tokens, int ffn) {
  swiglu_forward_kernel<<<elementwise_grid(static_cast<std::size_t>(tokens) * ffn), kBlock>>>(gate_up, act, tokens, ffn);
  check_launch();
}

void swiglu_backward(const Bf16* gate_up, const Bf16* dact, Bf16* dgate_up, int tokens, int ffn) {
  swiglu_backward_kernel<<<elementwise_grid(static_cast<std::size_t>(tokens) * ffn), kBlock>>>(gate_up, dact, dgate_up,
                                                                                              tokens, ffn);
  check_launch();
}

}  // namespace gpuplan::cuda
