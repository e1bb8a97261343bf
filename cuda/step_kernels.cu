// Kernels of step_kernels.h: grid-stride loops over elements, one block per row where a row
// needs a reduction (cross-entropy).
#include <cuda_runtime.h>

#include "launch.h"
#include "step_kernels.h"

namespace gpuplan::cuda {
namespace {

constexpr int kBlock = kLaunchBlock;
constexpr unsigned kFullWarp = 0xffffffffu;

__global__ void embedding_forward_kernel(const Bf16* table, const int* tokens, Bf16* x, int token_count,
                                         int hidden) {
  const std::size_t total = static_cast<std::size_t>(token_count) * hidden;
  for (std::size_t idx = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; idx < total;
       idx += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t t = idx / hidden, j = idx % hidden;
    x[idx] = table[static_cast<std::size_t>(tokens[t]) * hidden + j];
  }
}

__global__ void embedding_backward_kernel(const int* tokens, const Bf16* dx, float* dtable, int token_count,
                                          int hidden) {
  const std::size_t total = static_cast<std::size_t>(token_count) * hidden;
  for (std::size_t idx = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; idx < total;
       idx += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t t = idx / hidden, j = idx % hidden;
    atomicAdd(dtable + static_cast<std::size_t>(tokens[t]) * hidden + j, __bfloat162float(dx[idx]));
  }
}

// Merges the running (max, Σ exp(x − max)) of another part of the row into (m, s). A part
// with m = −∞ is checked first, since exp(−∞ − (−∞)) is NaN: its s is 0 if it saw no element,
// or NaN if it saw only NaNs (a NaN never raises m), so it is added, not dropped, and a row
// whose poisoned elements all fell to one thread still comes out NaN.
__device__ inline void merge_lse(float& m, float& s, float m_other, float s_other) {
  if (m_other == -INFINITY) {
    s += s_other;
    return;
  }
  if (m == -INFINITY) {
    m = m_other;
    s = s_other + s;
    return;
  }
  const float top = fmaxf(m, m_other);
  s = s * expf(m - top) + s_other * expf(m_other - top);
  m = top;
}

__global__ void cross_entropy_forward_kernel(const float* logits, const int* targets, float* lse, float* losses,
                                             int vocab) {
  const std::size_t row = blockIdx.x;
  const float* x = logits + row * vocab;
  float m = -INFINITY, s = 0;
  for (int i = threadIdx.x; i < vocab; i += kBlock) {
    const float v = x[i];
    if (v > m) {  // a new maximum rescales the sum so far (exp(−∞) = 0 on the first element)
      s = s * expf(m - v) + 1.0f;
      m = v;
    } else {
      s += expf(v - m);  // NaN falls here and poisons the sum, as it should
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const float m_other = __shfl_xor_sync(kFullWarp, m, offset);
    const float s_other = __shfl_xor_sync(kFullWarp, s, offset);
    merge_lse(m, s, m_other, s_other);
  }
  __shared__ float warp_m[kBlock / 32], warp_s[kBlock / 32];
  if (threadIdx.x % 32 == 0) {
    warp_m[threadIdx.x / 32] = m;
    warp_s[threadIdx.x / 32] = s;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float row_m = warp_m[0], row_s = warp_s[0];
    for (int w = 1; w < kBlock / 32; ++w) merge_lse(row_m, row_s, warp_m[w], warp_s[w]);
    const float row_lse = row_m + logf(row_s);
    lse[row] = row_lse;
    losses[row] = row_lse - x[targets[row]];
  }
}

__global__ void mean_kernel(const float* values, int count, float* out) {
  float sum = 0;
  for (int i = threadIdx.x; i < count; i += kBlock) sum += values[i];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(kFullWarp, sum, offset);
  __shared__ float warp_sum[kBlock / 32];
  if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0;
    for (int w = 0; w < kBlock / 32; ++w) total += warp_sum[w];
    out[0] = total / count;
  }
}

__global__ void cross_entropy_backward_kernel(const float* logits, const int* targets, const float* lse,
                                              Bf16* dlogits, int rows, int vocab) {
  const std::size_t total = static_cast<std::size_t>(rows) * vocab;
  const float inv_rows = 1.0f / rows;
  for (std::size_t idx = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; idx < total;
       idx += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t row = idx / vocab;
    const int col = static_cast<int>(idx % vocab);
    const float p = expf(logits[idx] - lse[row]);
    dlogits[idx] = __float2bfloat16((p - (col == targets[row] ? 1.0f : 0.0f)) * inv_rows);
  }
}

// apex FusedAdam's adam_w_mode arithmetic, in the order calibration/adamw_reference.cpp writes it.
__global__ void adamw_kernel(float* master, const float* grad, float* m, float* v, Bf16* params, std::size_t count,
                             std::size_t decayed, AdamWArgs a) {
  for (std::size_t idx = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; idx < count;
       idx += std::size_t(gridDim.x) * blockDim.x) {
    const float g = grad[idx];
    const float m_new = a.beta1 * m[idx] + a.one_minus_beta1 * g;
    const float v_new = a.beta2 * v[idx] + a.one_minus_beta2 * g * g;
    m[idx] = m_new;
    v[idx] = v_new;
    const float m_hat = m_new / a.bias_correction1;
    const float v_hat = v_new / a.bias_correction2;
    const float p = master[idx];
    const float decay = idx < decayed ? a.weight_decay : 0.0f;
    const float p_new = p - a.lr * (m_hat / (sqrtf(v_hat) + a.eps) + decay * p);
    master[idx] = p_new;
    params[idx] = __float2bfloat16(p_new);
  }
}

__global__ void to_bf16_kernel(const float* src, Bf16* dst, std::size_t count) {
  for (std::size_t idx = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; idx < count;
       idx += std::size_t(gridDim.x) * blockDim.x) {
    dst[idx] = __float2bfloat16(src[idx]);
  }
}

}  // namespace

void embedding_forward(const Bf16* table, const int* tokens, Bf16* x, int token_count, int hidden) {
  const std::size_t total = static_cast<std::size_t>(token_count) * hidden;
  embedding_forward_kernel<<<elementwise_grid(total), kBlock>>>(table, tokens, x, token_count, hidden);
  check_launch();
}

void embedding_backward(const int* tokens, const Bf16* dx, float* dtable, int token_count, int hidden) {
  const std::size_t total = static_cast<std::size_t>(token_count) * hidden;
  embedding_backward_kernel<<<elementwise_grid(total), kBlock>>>(tokens, dx, dtable, token_count, hidden);
  check_launch();
}

void cross_entropy_forward(const float* logits, const int* targets, float* lse, float* losses, int rows, int vocab) {
  cross_entropy_forward_kernel<<<rows, kBlock>>>(logits, targets, lse, losses, vocab);
  check_launch();
}

void mean_of(const float* values, int count, float* out) {
  mean_kernel<<<1, kBlock>>>(values, count, out);
  check_launch();
}

void cross_entropy_backward(const float* logits, const int* targets, const float* lse, Bf16* dlogits, int rows,
                            int vocab) {
  const std::size_t total = static_cast<std::size_t>(rows) * vocab;
  cross_entropy_backward_kernel<<<elementwise_grid(total), kBlock>>>(logits, targets, lse, dlogits, rows, vocab);
  check_launch();
}

void adamw_update(float* master, const float* grad, float* m, float* v, Bf16* params, std::size_t count,
                  std::size_t decayed, const AdamWArgs& args) {
  adamw_kernel<<<elementwise_grid(count), kBlock>>>(master, grad, m, v, params, count, decayed, args);
  check_launch();
}

void to_bf16(const float* src, Bf16* dst, std::size_t count) {
  to_bf16_kernel<<<elementwise_grid(count), kBlock>>>(src, dst, count);
  check_launch();
}

}  // namespace gpuplan::cuda
