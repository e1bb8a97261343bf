// Figures the seed documents derive from a GPU's datasheet: CUDA cores, vector FP32 rate,
// tensor-core FLOPs per SM per cycle, ridge points, total on-chip memory.
#pragma once

#include <array>
#include <optional>

#include "catalog/gpu.h"

namespace gpuplan {

// SMs × FP32 lanes per SM (H100 SXM: 132 × 128 = 16,896).
std::optional<double> cuda_cores(const Gpu& gpu);

// Vector FP32 FLOP/s at a clock: cores × clock, × 2 when counting an FMA as two FLOPs.
// The seeds' H100 example: 16,896 × 1.59 GHz ≈ 26.9 TFLOP/s (no FMA), × 1.98 GHz ≈ 33.5.
std::optional<double> vector_fp32_flops_per_s(const Gpu& gpu, double clock_hz, bool count_fma);

// Dense tensor FLOPs per SM per cycle at the tensor clock: peak / (SMs × clock).
// H100 bf16: 989.4e12 / (132 × 1.83e9) ≈ 4,096.
std::optional<double> tensor_flops_per_sm_per_cycle(const Gpu& gpu, Precision p);

// Ridge point (critical arithmetic intensity, FLOP/byte) = dense peak / HBM bandwidth.
// H100 SXM bf16: 989e12 / 3.35e12 ≈ 295.
std::optional<double> ridge_point_flops_per_byte(const Gpu& gpu, Precision p);

// Whole-chip on-chip L1/SMEM array: per-SM capacity × SMs (H100: 256 KB × 132 ≈ 33.8 MB,
// the seeds' "≈ 33 MB"); falls back to the shared-memory carve-out when L1 size is unknown.
std::optional<double> total_smem_bytes(const Gpu& gpu);
// Largest shared memory software can allocate across the chip (H100: 228 KB × 132 ≈ 30.1 MB).
std::optional<double> total_max_shared_bytes(const Gpu& gpu);
std::optional<double> total_register_bytes(const Gpu& gpu);

// Every figure above for one GPU, as the `gpus`, `gpu` and `compare` answers carry them (the
// report formats these; it derives nothing). Per precision in kAllPrecisions order.
struct GpuDerived {
  std::optional<double> cuda_cores;
  std::optional<double> vector_fp32_base_no_fma, vector_fp32_base_fma;    // flops_per_s at the base clock
  std::optional<double> vector_fp32_boost_no_fma, vector_fp32_boost_fma;  // at the boost clock
  std::array<std::optional<double>, kPrecisionCount> tensor_flops_per_sm_per_cycle{};
  std::array<std::optional<double>, kPrecisionCount> ridge_point_flops_per_byte{};
  std::optional<double> total_smem_bytes, total_max_shared_bytes, total_register_bytes;
};
GpuDerived derive_gpu(const Gpu& gpu);

}  // namespace gpuplan
