// Launch shapes shared by the benchmark's elementwise kernels (layer_kernels.cu,
// step_kernels.cu): 256-thread blocks, and a grid-stride grid capped at 65,536 blocks.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_util.h"

namespace gpuplan::cuda {

inline constexpr int kLaunchBlock = 256;

// Enough blocks to give each element one thread, at least one and at most 65,536 (the
// kernels' grid-stride loops cover the rest).
inline unsigned elementwise_grid(std::size_t total) {
  const std::size_t blocks = (total + kLaunchBlock - 1) / kLaunchBlock;
  return static_cast<unsigned>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

inline void check_launch() { GP_CUDA(cudaGetLastError()); }

}  // namespace gpuplan::cuda
