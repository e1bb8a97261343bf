// Device tensors for the layer and the training step: poisoned with NaN at allocation, so
// anything a kernel fails to write shows up as a non-finite result, and read back to the host
// widened to double for the CPU references.
#pragma once

#include <cuda_bf16.h>

#include <cstddef>
#include <vector>

#include "cuda_util.h"
#include "random_fill.h"

namespace gpuplan::cuda {

// 0xFF bytes are NaN in fp32 and bf16.
template <typename T>
struct Tensor {
  DeviceBuffer<T> buffer;
  std::size_t count;
  explicit Tensor(std::size_t n) : buffer(n), count(n) { GP_CUDA(cudaMemset(buffer.ptr, 0xFF, n * sizeof(T))); }
  T* get() const { return buffer.ptr; }
};

// `count` fp32 or bf16 elements of device memory, widened to double.
inline std::vector<double> download(const void* data, Elem elem, std::size_t count) {
  std::vector<double> out(count);
  if (elem == Elem::f32) {
    std::vector<float> host(count);
    GP_CUDA(cudaMemcpy(host.data(), data, count * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < count; ++i) out[i] = host[i];
  } else {
    std::vector<__nv_bfloat16> host(count);
    GP_CUDA(cudaMemcpy(host.data(), data, count * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < count; ++i) out[i] = __bfloat162float(host[i]);
  }
  return out;
}

// The same as fp32, for the optimizer check, which compares in the precision the device keeps.
inline std::vector<float> download_floats(const void* data, Elem elem, std::size_t count) {
  const std::vector<double> wide = download(data, elem, count);
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<float>(wide[i]);  // exact: fp32 or bf16 values
  return out;
}

}  // namespace gpuplan::cuda
