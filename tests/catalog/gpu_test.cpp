// Golden figures the seed documents derive for GPUs, checked against the catalog.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/gpu_derived.h"

namespace gpuplan {
namespace {

TEST(GpuDerived, H100CudaCores) {
  // Seed: 132 SMs x 128 FP32 cores = 16,896.
  EXPECT_DOUBLE_EQ(*cuda_cores(default_catalog().gpu("h100-sxm")), 16896.0);
}

TEST(GpuDerived, H100VectorFp32WithoutFma) {
  // Seed: 16,896 cores x 1.59 GHz ≈ 26.9 TFLOP/s; x 1.98 GHz ≈ 33.5 TFLOP/s (one op per cycle).
  const Gpu& h100 = default_catalog().gpu("h100-sxm");
  EXPECT_NEAR(*vector_fp32_flops_per_s(h100, 1.59e9, false) / 1e12, 26.9, 0.05);
  EXPECT_NEAR(*vector_fp32_flops_per_s(h100, 1.98e9, false) / 1e12, 33.5, 0.05);
  // Counting an FMA as two FLOPs at boost gives the datasheet's 66.9 TFLOP/s.
  EXPECT_NEAR(*vector_fp32_flops_per_s(h100, 1.98e9, true) / 1e12, 66.9, 0.05);
}

TEST(GpuDerived, H100RidgePoints) {
  // bf16: 989.4e12 / 3.35e12 ≈ 295 FLOP/B; fp8 ≈ 591 (the seed's "591" is the fp8 figure).
  const Gpu& h100 = default_catalog().gpu("h100-sxm");
  EXPECT_NEAR(*ridge_point_flops_per_byte(h100, Precision::bf16), 295.0, 1.0);
  EXPECT_NEAR(*ridge_point_flops_per_byte(h100, Precision::fp8), 591.0, 1.0);
}

TEST(GpuDerived, H100TotalSharedMemory) {
  // Seed: 256 KB of L1/SMEM per SM x 132 SMs ≈ 33 MB; the allocatable carve-out is 228 KB/SM.
  const Gpu& h100 = default_catalog().gpu("h100-sxm");
  EXPECT_NEAR(*total_smem_bytes(h100) / 1e6, 33.8, 0.1);
  EXPECT_NEAR(*total_max_shared_bytes(h100) / 1e6, 30.1, 0.1);
}

TEST(GpuDerived, H100TensorFlopsPerSmPerCycle) {
  // 989.4e12 / (132 SMs x 1.83e9) = 4,096 dense bf16 FLOPs per SM per cycle (1,024 per tensor core).
  EXPECT_NEAR(*tensor_flops_per_sm_per_cycle(default_catalog().gpu("h100-sxm"), Precision::bf16), 4096.0, 2.0);
}

TEST(GpuCatalog, SparseNeverBelowDense) {
  for (const Gpu& g : default_catalog().gpus) {
    for (Precision p : kAllPrecisions) {
      if (g.sparse(p) > 0 && g.dense(p) > 0) {
        EXPECT_GE(g.sparse(p), g.dense(p)) << g.id;
      }
    }
  }
}

}  // namespace
}  // namespace gpuplan
