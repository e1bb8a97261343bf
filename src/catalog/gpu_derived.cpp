#include "catalog/gpu_derived.h"

namespace gpuplan {

std::optional<double> cuda_cores(const Gpu& gpu) {
  if (!gpu.cuda_cores_per_sm || gpu.sm_count <= 0) return std::nullopt;
  return static_cast<double>(gpu.sm_count) * *gpu.cuda_cores_per_sm;
}

std::optional<double> vector_fp32_flops_per_s(const Gpu& gpu, double clock_hz, bool count_fma) {
  const auto cores = cuda_cores(gpu);
  if (!cores || clock_hz <= 0) return std::nullopt;
  return *cores * clock_hz * (count_fma ? 2.0 : 1.0);
}

std::optional<double> tensor_flops_per_sm_per_cycle(const Gpu& gpu, Precision p) {
  const double peak = gpu.dense(p);
  const auto clock = gpu.tensor_clock_hz ? gpu.tensor_clock_hz : gpu.boost_clock_hz;
  if (peak <= 0 || !clock || gpu.sm_count <= 0) return std::nullopt;
  return peak / (static_cast<double>(gpu.sm_count) * *clock);
}

std::optional<double> ridge_point_flops_per_byte(const Gpu& gpu, Precision p) {
  const double peak = gpu.dense(p);
  if (peak <= 0 || gpu.memory_bw_bytes_per_s <= 0) return std::nullopt;
  return peak / gpu.memory_bw_bytes_per_s;
}

std::optional<double> total_smem_bytes(const Gpu& gpu) {
  const auto per_sm = gpu.l1_smem_per_sm_bytes ? gpu.l1_smem_per_sm_bytes : gpu.smem_per_sm_bytes;
  if (!per_sm || gpu.sm_count <= 0) return std::nullopt;
  return *per_sm * gpu.sm_count;
}

std::optional<double> total_max_shared_bytes(const Gpu& gpu) {
  if (!gpu.smem_per_sm_bytes || gpu.sm_count <= 0) return std::nullopt;
  return *gpu.smem_per_sm_bytes * gpu.sm_count;
}

std::optional<double> total_register_bytes(const Gpu& gpu) {
  if (!gpu.registers_per_sm_bytes || gpu.sm_count <= 0) return std::nullopt;
  return *gpu.registers_per_sm_bytes * gpu.sm_count;
}

}  // namespace gpuplan

namespace gpuplan {

GpuDerived derive_gpu(const Gpu& gpu) {
  GpuDerived d;
  d.cuda_cores = cuda_cores(gpu);
  if (gpu.base_clock_hz) {
    d.vector_fp32_base_no_fma = vector_fp32_flops_per_s(gpu, *gpu.base_clock_hz, false);
    d.vector_fp32_base_fma = vector_fp32_flops_per_s(gpu, *gpu.base_clock_hz, true);
  }
  if (gpu.boost_clock_hz) {
    d.vector_fp32_boost_no_fma = vector_fp32_flops_per_s(gpu, *gpu.boost_clock_hz, false);
    d.vector_fp32_boost_fma = vector_fp32_flops_per_s(gpu, *gpu.boost_clock_hz, true);
  }
  for (Precision p : kAllPrecisions) {
    d.tensor_flops_per_sm_per_cycle[index_of(p)] = tensor_flops_per_sm_per_cycle(gpu, p);
    d.ridge_point_flops_per_byte[index_of(p)] = ridge_point_flops_per_byte(gpu, p);
  }
  d.total_smem_bytes = total_smem_bytes(gpu);
  d.total_max_shared_bytes = total_max_shared_bytes(gpu);
  d.total_register_bytes = total_register_bytes(gpu);
  return d;
}

}  // namespace gpuplan
