// Helpers the benchmark's CUDA code shares: error checks, device buffers, and event timing
// (warm-up first, then each run timed on its own). Host code only; used from .cu and .cpp files.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "kernels.h"

#define GP_CUDA(call) ::gpuplan::cuda::check_cuda(static_cast<int>(call), #call)

namespace gpuplan::cuda {

inline constexpr int kWarmupRuns = 3;

template <typename T>
struct DeviceBuffer {
  T* ptr = nullptr;
  explicit DeviceBuffer(std::size_t count) { GP_CUDA(cudaMalloc(&ptr, count * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

template <typename Launch>
std::vector<double> time_runs(Launch launch, int runs) {
  for (int run_idx = 0; run_idx < kWarmupRuns; ++run_idx) launch();
  GP_CUDA(cudaGetLastError());
  GP_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start{};
  cudaEvent_t stop{};
  GP_CUDA(cudaEventCreate(&start));
  GP_CUDA(cudaEventCreate(&stop));
  std::vector<double> times_s;
  for (int run_idx = 0; run_idx < runs; ++run_idx) {
    GP_CUDA(cudaEventRecord(start));
    launch();
    GP_CUDA(cudaEventRecord(stop));
    GP_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    GP_CUDA(cudaEventElapsedTime(&ms, start, stop));
    times_s.push_back(static_cast<double>(ms) * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  GP_CUDA(cudaGetLastError());
  return times_s;
}

}  // namespace gpuplan::cuda
