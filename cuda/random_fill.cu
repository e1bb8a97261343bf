// Device fill, host re-derivation and finiteness checks for random_fill.h.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <stdexcept>

#include "cuda_util.h"
#include "random_fill.h"

namespace gpuplan::cuda {
namespace {

// One rounding: the product is exact (power-of-two scale), so scale·u + offset rounds once
// whether or not the compiler fuses it.
__host__ __device__ inline float fill_value(std::size_t i, FillSpec spec) {
  return uniform_at(i, spec.seed) * spec.scale + spec.offset;
}

template <typename T>
__host__ __device__ inline T convert(float v);
template <>
__host__ __device__ inline float convert<float>(float v) { return v; }
template <>
__host__ __device__ inline __nv_bfloat16 convert<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <>
__host__ __device__ inline __half convert<__half>(float v) { return __float2half(v); }
template <>
__host__ __device__ inline __nv_fp8_e4m3 convert<__nv_fp8_e4m3>(float v) { return __nv_fp8_e4m3(v); }

template <typename T>
__host__ __device__ inline float widen(T v) { return static_cast<float>(v); }
template <>
__host__ __device__ inline float widen<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <>
__host__ __device__ inline float widen<__half>(__half v) { return __half2float(v); }

template <typename T>
__global__ void fill_kernel(T* data, std::size_t count, FillSpec spec) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
    data[i] = convert<T>(fill_value(i, spec));
}

template <typename T>
__global__ void nonfinite_kernel(const T* data, std::size_t count, unsigned long long* bad) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
    local += !isfinite(widen<T>(data[i]));
  if (local) atomicAdd(bad, local);
}

constexpr int kBlock = 256;
unsigned grid_for(std::size_t count) {
  const std::size_t blocks = (count + kBlock - 1) / kBlock;
  return static_cast<unsigned>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

template <typename T>
void fill_as(void* data, std::size_t count, FillSpec spec) {
  fill_kernel<T><<<grid_for(count), kBlock>>>(static_cast<T*>(data), count, spec);
  GP_CUDA(cudaGetLastError());
}

template <typename T>
unsigned long long nonfinite_as(const void* data, std::size_t count) {
  DeviceBuffer<unsigned long long> bad(1);
  GP_CUDA(cudaMemset(bad.ptr, 0, sizeof(unsigned long long)));
  nonfinite_kernel<T><<<grid_for(count), kBlock>>>(static_cast<const T*>(data), count, bad.ptr);
  GP_CUDA(cudaGetLastError());
  unsigned long long host = 0;
  GP_CUDA(cudaMemcpy(&host, bad.ptr, sizeof(host), cudaMemcpyDeviceToHost));
  return host;
}

template <typename T>
double read_as(const void* data, std::size_t i) {
  T v{};
  GP_CUDA(cudaMemcpy(&v, static_cast<const T*>(data) + i, sizeof(T), cudaMemcpyDeviceToHost));
  return widen<T>(v);
}

}  // namespace

std::size_t elem_bytes(Elem elem) {
  switch (elem) {
    case Elem::f32: return 4;
    case Elem::bf16:
    case Elem::f16: return 2;
    case Elem::e4m3: return 1;
  }
  throw std::invalid_argument("unknown element type");
}

const char* elem_name(Elem elem) {
  switch (elem) {
    case Elem::f32: return "fp32";
    case Elem::bf16: return "bf16";
    case Elem::f16: return "fp16";
    case Elem::e4m3: return "fp8 e4m3";
  }
  return "?";
}

void fill_uniform(void* data, Elem elem, std::size_t count, FillSpec spec) {
  switch (elem) {
    case Elem::f32: return fill_as<float>(data, count, spec);
    case Elem::bf16: return fill_as<__nv_bfloat16>(data, count, spec);
    case Elem::f16: return fill_as<__half>(data, count, spec);
    case Elem::e4m3: return fill_as<__nv_fp8_e4m3>(data, count, spec);
  }
}

double stored_uniform(Elem elem, std::size_t i, FillSpec spec) {
  const float v = fill_value(i, spec);
  switch (elem) {
    case Elem::f32: return v;
    case Elem::bf16: return widen(convert<__nv_bfloat16>(v));
    case Elem::f16: return widen(convert<__half>(v));
    case Elem::e4m3: return widen(convert<__nv_fp8_e4m3>(v));
  }
  throw std::invalid_argument("unknown element type");
}

unsigned long long count_nonfinite(const void* data, Elem elem, std::size_t count) {
  switch (elem) {
    case Elem::f32: return nonfinite_as<float>(data, count);
    case Elem::bf16: return nonfinite_as<__nv_bfloat16>(data, count);
    case Elem::f16: return nonfinite_as<__half>(data, count);
    case Elem::e4m3: return nonfinite_as<__nv_fp8_e4m3>(data, count);
  }
  throw std::invalid_argument("unknown element type");
}

double read_element(const void* data, Elem elem, std::size_t i) {
  switch (elem) {
    case Elem::f32: return read_as<float>(data, i);
    case Elem::bf16: return read_as<__nv_bfloat16>(data, i);
    case Elem::f16: return read_as<__half>(data, i);
    case Elem::e4m3: return read_as<__nv_fp8_e4m3>(data, i);
  }
  throw std::invalid_argument("unknown element type");
}

float fan_in_scale(int fan_in) {
  return std::ldexp(1.0f, -static_cast<int>(std::lround(std::log2(std::sqrt(static_cast<double>(fan_in))))));
}

}  // namespace gpuplan::cuda
