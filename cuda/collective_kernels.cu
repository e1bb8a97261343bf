// Patterns of collective_kernels.h. With `chunk` = the per-rank share of the full buffer:
//   all_reduce      send[i] = v(i, r)             recv[i] = Σ_q v(i, q)
//   all_gather      send[i] = v(i, r), i < chunk  recv[q·chunk + i] = v(i, q)
//   reduce_scatter  send[j] = v(j, r)             recv[i] = Σ_q v(r·chunk + i, q)
//   all_to_all      send[p·chunk + i] = w(r, p, i) recv[q·chunk + i] = w(q, r, i)
#include "collective_kernels.h"
#include "cuda_util.h"

namespace gpuplan::cuda {
namespace {

__device__ inline float v(std::size_t i, int rank, unsigned seed) {
  return static_cast<float>((i * 7 + static_cast<std::size_t>(rank) * 13 + seed) % 32);
}
__device__ inline float w(int from, int to, std::size_t i, unsigned seed) {
  return static_cast<float>((static_cast<std::size_t>(from) * 31 + static_cast<std::size_t>(to) * 17 + i + seed) % 64);
}

__global__ void fill_kernel(float* send, std::size_t count, CollectiveOp op, int rank, int ranks, unsigned seed) {
  const std::size_t chunk = op == CollectiveOp::all_gather ? count : count / ranks;
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < count; j += std::size_t(gridDim.x) * blockDim.x) {
    send[j] = op == CollectiveOp::all_to_all ? w(rank, static_cast<int>(j / chunk), j % chunk, seed) : v(j, rank, seed);
  }
}

__global__ void check_kernel(const float* recv, std::size_t count, CollectiveOp op, int rank, int ranks, unsigned seed,
                             unsigned long long* wrong) {
  const std::size_t chunk = op == CollectiveOp::reduce_scatter ? count : count / ranks;
  unsigned long long bad = 0;
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < count; j += std::size_t(gridDim.x) * blockDim.x) {
    float want = 0;
    switch (op) {
      case CollectiveOp::all_reduce:
        for (int q = 0; q < ranks; ++q) want += v(j, q, seed);
        break;
      case CollectiveOp::all_gather: want = v(j % chunk, static_cast<int>(j / chunk), seed); break;
      case CollectiveOp::reduce_scatter:
        for (int q = 0; q < ranks; ++q) want += v(static_cast<std::size_t>(rank) * chunk + j, q, seed);
        break;
      case CollectiveOp::all_to_all: want = w(static_cast<int>(j / chunk), rank, j % chunk, seed); break;
    }
    bad += recv[j] != want;  // NaN poison never equals
  }
  if (bad) atomicAdd(wrong, bad);
}

constexpr int kBlock = 256;
unsigned grid_for(std::size_t count) {
  const std::size_t blocks = (count + kBlock - 1) / kBlock;
  return static_cast<unsigned>(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
}

}  // namespace

void fill_collective_send(float* send, std::size_t count, CollectiveOp op, int rank, int ranks, unsigned seed,
                          cudaStream_t stream) {
  fill_kernel<<<grid_for(count), kBlock, 0, stream>>>(send, count, op, rank, ranks, seed);
  GP_CUDA(cudaGetLastError());
}

unsigned long long collective_wrong(const float* recv, std::size_t count, CollectiveOp op, int rank, int ranks,
                                    unsigned seed, cudaStream_t stream) {
  DeviceBuffer<unsigned long long> wrong(1);
  GP_CUDA(cudaMemsetAsync(wrong.ptr, 0, sizeof(unsigned long long), stream));
  check_kernel<<<grid_for(count), kBlock, 0, stream>>>(recv, count, op, rank, ranks, seed, wrong.ptr);
  GP_CUDA(cudaGetLastError());
  unsigned long long host = 0;
  GP_CUDA(cudaMemcpyAsync(&host, wrong.ptr, sizeof(host), cudaMemcpyDeviceToHost, stream));
  GP_CUDA(cudaStreamSynchronize(stream));
  return host;
}

}  // namespace gpuplan::cuda
