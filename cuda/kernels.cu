// Memory-bandwidth (HBM and L2) and WMMA tensor-core kernels for gpuplan-bench.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "cuda_util.h"
#include "kernels.h"

namespace gpuplan::cuda {

void check_cuda(int status, const char* call) {
  if (status != 0) {
    throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(static_cast<cudaError_t>(status)));
  }
}

namespace {

// The value word i holds: a hash of (i, seed) in 0..255, so the host and a verify kernel can
// both recompute it and a stale or skipped word (poisoned to 0xFFFFFFFF) never matches.
__host__ __device__ inline unsigned word_value(std::size_t i, unsigned seed) {
  unsigned h = static_cast<unsigned>(i) * 2654435761u ^ static_cast<unsigned>(i >> 32) ^ seed;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return h & 255u;
}

__global__ void fill_kernel(unsigned* data, std::size_t words, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < words; i += std::size_t(gridDim.x) * blockDim.x)
    data[i] = word_value(i, seed);
}

// Streams the buffer once in 16-byte vectors and adds every word; one atomic per thread block.
__global__ void read_kernel(const uint4* data, std::size_t vectors, unsigned long long* sum) {
  unsigned long long acc = 0;
  for (std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; v < vectors; v += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 x = data[v];
    acc += static_cast<unsigned long long>(x.x) + x.y + x.z + x.w;
  }
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  __shared__ unsigned long long warp_sums[32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long block = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) block += warp_sums[w];
    atomicAdd(sum, block);
  }
}

// The read kernel over a buffer that fits in L2, `passes` times per launch so one launch is
// long enough to time. __ldcg caches in L2 only: each thread rereads the same addresses every
// pass, which L1 would otherwise serve.
__global__ void l2_read_kernel(const uint4* data, std::size_t vectors, int passes, unsigned long long* sum) {
  unsigned long long acc = 0;
  for (int pass = 0; pass < passes; ++pass) {
    for (std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; v < vectors; v += std::size_t(gridDim.x) * blockDim.x) {
      const uint4 x = __ldcg(data + v);
      acc += static_cast<unsigned long long>(x.x) + x.y + x.z + x.w;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  __shared__ unsigned long long warp_sums[32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long block = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) block += warp_sums[w];
    atomicAdd(sum, block);
  }
}

__global__ void write_kernel(uint4* data, std::size_t vectors, unsigned seed) {
  for (std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; v < vectors; v += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t w = 4 * v;
    data[v] = make_uint4(word_value(w, seed), word_value(w + 1, seed), word_value(w + 2, seed), word_value(w + 3, seed));
  }
}

__global__ void copy_kernel(const uint4* src, uint4* dst, std::size_t vectors) {
  for (std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; v < vectors; v += std::size_t(gridDim.x) * blockDim.x)
    dst[v] = src[v];
}

__global__ void verify_kernel(const unsigned* data, std::size_t words, unsigned seed, unsigned long long* wrong) {
  unsigned long long bad = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < words; i += std::size_t(gridDim.x) * blockDim.x)
    bad += data[i] != word_value(i, seed);
  if (bad) atomicAdd(wrong, bad);
}

// One warp per 16×16 tile of C; A row-major m×k, B row-major k×n (the seed's WMMA example).
__global__ void wmma_kernel(const half* a, const half* b, float* c, int m, int n, int k) {
  using namespace nvcuda;
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int tiles_n = n / 16;
  const int tile_m = warp / tiles_n;
  const int tile_n = warp % tiles_n;
  if (tile_m >= m / 16) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int kk = 0; kk < k; kk += 16) {
    wmma::load_matrix_sync(fa, a + static_cast<std::size_t>(tile_m) * 16 * k + kk, k);
    wmma::load_matrix_sync(fb, b + static_cast<std::size_t>(kk) * n + tile_n * 16, n);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + static_cast<std::size_t>(tile_m) * 16 * n + tile_n * 16, acc, n, wmma::mem_row_major);
}

int grid_for_device() {
  int device = 0, sms = 0;
  GP_CUDA(cudaGetDevice(&device));
  GP_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms * 8;  // enough resident blocks of 256 threads to saturate HBM
}

}  // namespace

KernelRun run_memory(const std::string& op, std::size_t bytes, int runs, unsigned seed) {
  const std::size_t vectors = bytes / sizeof(uint4);
  const std::size_t words = vectors * 4;
  const int grid = grid_for_device();
  constexpr int block = 256;
  KernelRun run;
  DeviceBuffer<unsigned> src(words);
  DeviceBuffer<unsigned long long> counter(1);
  auto verify = [&](const unsigned* data) {
    GP_CUDA(cudaMemset(counter.ptr, 0, sizeof(unsigned long long)));
    verify_kernel<<<grid, block>>>(data, words, seed, counter.ptr);
    // A verify kernel that never ran would leave the counter at 0: "no word wrong".
    GP_CUDA(cudaGetLastError());
    unsigned long long wrong = 0;
    GP_CUDA(cudaMemcpy(&wrong, counter.ptr, sizeof(wrong), cudaMemcpyDeviceToHost));
    run.correct = wrong == 0;
    run.check = std::to_string(wrong) + " of " + std::to_string(words) + " words wrong";
  };
  if (op == "read" || op == "l2_read") {
    // l2_read: enough passes per launch to read about 2 GiB, so launch overhead is noise.
    const int passes = op == "read" ? 1 : static_cast<int>(std::max<std::size_t>(1, (std::size_t(2) << 30) / bytes));
    fill_kernel<<<grid, block>>>(src.ptr, words, seed);
    GP_CUDA(cudaGetLastError());
    unsigned long long expected = 0;  // the reference, summed on the host
    for (std::size_t i = 0; i < words; ++i) expected += word_value(i, seed);
    // Every run adds into one counter, zeroed once, so nothing but the kernel sits between the
    // events; warm-up and timed runs together must add up to that many full sums.
    GP_CUDA(cudaMemset(counter.ptr, 0, sizeof(unsigned long long)));
    const auto* vec = reinterpret_cast<const uint4*>(src.ptr);
    run.times_s = time_runs(
        [&] {
          if (passes == 1) read_kernel<<<grid, block>>>(vec, vectors, counter.ptr);
          else l2_read_kernel<<<grid, block>>>(vec, vectors, passes, counter.ptr);
        },
        runs);
    for (double& t : run.times_s) t /= passes;  // one pass over the buffer
    unsigned long long total = 0;
    GP_CUDA(cudaMemcpy(&total, counter.ptr, sizeof(total), cudaMemcpyDeviceToHost));
    const unsigned long long want =
        expected * static_cast<unsigned long long>(passes) * static_cast<unsigned long long>(kWarmupRuns + runs);
    run.correct = total == want;
    run.check = "sum " + std::to_string(total) + ", reference " + std::to_string(want);
  } else if (op == "write") {
    GP_CUDA(cudaMemset(src.ptr, 0xFF, words * sizeof(unsigned)));
    run.times_s = time_runs([&] { write_kernel<<<grid, block>>>(reinterpret_cast<uint4*>(src.ptr), vectors, seed); }, runs);
    verify(src.ptr);
  } else if (op == "copy") {
    DeviceBuffer<unsigned> dst(words);
    fill_kernel<<<grid, block>>>(src.ptr, words, seed);
    GP_CUDA(cudaGetLastError());
    GP_CUDA(cudaMemset(dst.ptr, 0xFF, words * sizeof(unsigned)));
    run.times_s = time_runs([&] {
      copy_kernel<<<grid, block>>>(reinterpret_cast<const uint4*>(src.ptr), reinterpret_cast<uint4*>(dst.ptr), vectors);
    }, runs);
    verify(dst.ptr);
  } else {
    throw std::invalid_argument("unknown memory op " + op);
  }
  return run;
}

unsigned expected_word(std::size_t i, unsigned seed) { return word_value(i, seed); }

void fill_words(unsigned* device_words, std::size_t words, unsigned seed) {
  fill_kernel<<<grid_for_device(), 256>>>(device_words, words, seed);
  GP_CUDA(cudaGetLastError());
}

unsigned long long wrong_words(const unsigned* device_words, std::size_t words, unsigned seed) {
  DeviceBuffer<unsigned long long> counter(1);
  GP_CUDA(cudaMemset(counter.ptr, 0, sizeof(unsigned long long)));
  verify_kernel<<<grid_for_device(), 256>>>(device_words, words, seed, counter.ptr);
  GP_CUDA(cudaGetLastError());
  unsigned long long wrong = 0;
  GP_CUDA(cudaMemcpy(&wrong, counter.ptr, sizeof(wrong), cudaMemcpyDeviceToHost));
  return wrong;
}

KernelRun run_wmma_fp16(int m, int n, int k, int runs, unsigned seed) {
  if (m % 16 || n % 16 || k % 16) throw std::invalid_argument("WMMA shapes must be multiples of 16");
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<half> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  for (auto& x : a) x = __float2half(uniform(rng));
  for (auto& x : b) x = __float2half(uniform(rng));
  DeviceBuffer<half> da(a.size()), db(b.size());
  DeviceBuffer<float> dc(static_cast<std::size_t>(m) * n);
  GP_CUDA(cudaMemcpy(da.ptr, a.data(), a.size() * sizeof(half), cudaMemcpyHostToDevice));
  GP_CUDA(cudaMemcpy(db.ptr, b.data(), b.size() * sizeof(half), cudaMemcpyHostToDevice));
  GP_CUDA(cudaMemset(dc.ptr, 0xFF, static_cast<std::size_t>(m) * n * sizeof(float)));  // NaN
  const long long warps = static_cast<long long>(m / 16) * (n / 16);
  constexpr int block = 128;
  const unsigned grid = static_cast<unsigned>((warps * 32 + block - 1) / block);
  KernelRun run;
  run.times_s = time_runs([&] { wmma_kernel<<<grid, block>>>(da.ptr, db.ptr, dc.ptr, m, n, k); }, runs);
  std::vector<float> c(static_cast<std::size_t>(m) * n);
  GP_CUDA(cudaMemcpy(c.data(), dc.ptr, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  // 256 random entries against a double sum over the same fp16 inputs; fp32 accumulation of k
  // products of magnitude <= 1 stays well within 1e-3 of the sum of |a||b|.
  double worst = 0;
  std::uniform_int_distribution<int> row(0, m - 1), col(0, n - 1);
  for (int s = 0; s < 256; ++s) {
    const int i = row(rng), j = col(rng);
    double ref = 0, scale = 0;
    for (int kk = 0; kk < k; ++kk) {
      const double p = static_cast<double>(__half2float(a[static_cast<std::size_t>(i) * k + kk])) *
                       __half2float(b[static_cast<std::size_t>(kk) * n + j]);
      ref += p;
      scale += std::abs(p);
    }
    const double got = c[static_cast<std::size_t>(i) * n + j];
    const double err = std::isfinite(got) ? std::abs(got - ref) / (scale > 0 ? scale : 1) : INFINITY;
    worst = std::max(worst, err);
  }
  run.correct = worst < 1e-3;
  run.check = "worst error " + std::to_string(worst) + " of sum |a·b| on 256 sampled entries (limit 1e-3)";
  return run;
}

}  // namespace gpuplan::cuda
