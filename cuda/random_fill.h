// Random test data made on the device and re-derivable on the host: element i of a buffer is
// offset + scale · uniform_at(i, seed), rounded once to the element type. The host recomputes
// any element it needs for a reference without copying the buffer back. Scales are powers of
// two, so the product is exact and host and device (with or without FMA contraction) round
// the same value the same way.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpuplan::cuda {

enum class Elem { f32, bf16, f16, e4m3 };

std::size_t elem_bytes(Elem elem);
const char* elem_name(Elem elem);

// Uniform in [-1, 1) in steps of 2^-23 (exact in fp32): splitmix64 of (i, seed).
__host__ __device__ inline float uniform_at(std::size_t i, unsigned seed) {
  std::uint64_t h = static_cast<std::uint64_t>(i) + (static_cast<std::uint64_t>(seed) << 40) + 0x9E3779B97F4A7C15ull;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  h ^= h >> 31;
  return static_cast<float>(static_cast<std::int32_t>(h >> 40) - (1 << 23)) * (1.0f / 8388608.0f);
}

struct FillSpec {
  unsigned seed = 1;
  float scale = 1;   // a power of two
  float offset = 0;  // added after scaling (norm weights sit around 1)
};

// Fills `count` elements of `data` on the current device (default stream).
void fill_uniform(void* data, Elem elem, std::size_t count, FillSpec spec);
// Element i of such a buffer as the device holds it, widened to double.
double stored_uniform(Elem elem, std::size_t i, FillSpec spec);
// Elements that are NaN or infinite: poison never overwritten, or an overflow.
unsigned long long count_nonfinite(const void* data, Elem elem, std::size_t count);
// One element read back from the device, widened to double.
double read_element(const void* data, Elem elem, std::size_t i);

// 2^-round(log2 sqrt(fan_in)): the power of two nearest to 1/sqrt(fan_in), so a layer's
// outputs keep the scale of its inputs.
float fan_in_scale(int fan_in);

}  // namespace gpuplan::cuda
