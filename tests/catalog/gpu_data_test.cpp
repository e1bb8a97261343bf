// Golden figures for the GPU catalog files in data/hardware/gpus/: ridge points, the GeForce
// FP32-accumulate half rate, and the seed figures docs/seed-errata.md says the catalog corrects.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/gpu_derived.h"
#include "core/units.h"

namespace gpuplan {
namespace {

double tflops(const Gpu& g, Precision p) { return g.dense(p) / kTera; }

TEST(GpuData, B200RidgePoint) {
  // HGX B200: 2,250 dense BF16 TFLOP/s / 8.0 TB/s = 281 FLOP/byte (the 4.5 PFLOPS headline is sparse).
  const Gpu& b200 = default_catalog().gpu("b200");
  EXPECT_NEAR(*ridge_point_flops_per_byte(b200, Precision::bf16), 281.0, 1.0);
  EXPECT_NEAR(*ridge_point_flops_per_byte(b200, Precision::fp8), 562.0, 1.0);
}

TEST(GpuData, RidgePointsMatchTheHardwareNotes) {
  // Dense BF16 peak / HBM bandwidth, as tabulated in shared/data/hardware-notes.md section 2.
  struct Case {
    const char* id;
    double ridge_bf16;
  };
  for (const Case& c : {Case{"a100-sxm-80gb", 153}, Case{"h100-sxm", 295}, Case{"h200-sxm", 206},
                        Case{"h20", 37}, Case{"b200", 281}, Case{"gb200", 313}, Case{"l40s", 419},
                        Case{"mi300x", 247}, Case{"mi355x", 315}, Case{"tpu-v5p", 166}}) {
    const Gpu& g = default_catalog().gpu(c.id);
    EXPECT_NEAR(*ridge_point_flops_per_byte(g, Precision::bf16), c.ridge_bf16, 1.0) << c.id;
  }
}

TEST(GpuData, HalfRateFp32AccumulatePartsListTwiceTheRateForFp16Accumulate) {
  // GeForce (and P100's half2 path): FP16-accumulate rate = 2 x the FP32-accumulate dense rate
  // (RTX 4090: 330.3 vs 165.2; the datasheet rounds each, hence the 0.1% tolerance).
  int parts = 0;
  for (const Gpu& g : default_catalog().gpus) {
    if (!g.fp32_acc_half_rate) continue;
    ++parts;
    int checked = 0;
    for (Precision p : kAllPrecisions) {
      const double acc16 = g.fp16_acc_dense_flops_per_s[index_of(p)];
      if (acc16 <= 0) continue;
      ++checked;
      ASSERT_GT(g.dense(p), 0) << g.id << " " << precision_name(p) << ": FP32-accumulate dense rate missing";
      EXPECT_NEAR(acc16 / (2 * g.dense(p)), 1.0, 1e-3) << g.id << " " << precision_name(p);
    }
    EXPECT_GT(checked, 0) << g.id;
  }
  EXPECT_GE(parts, 4);  // rtx-2080-ti, rtx-3090, rtx-4090, rtx-5090 at least
}

TEST(GpuData, GeForceDenseIsTheFp32AccumulateRate) {
  // Mixed-precision training accumulates in FP32: the dense table must not hold the headline.
  const Catalog& c = default_catalog();
  EXPECT_NEAR(tflops(c.gpu("rtx-4090"), Precision::bf16), 165.2, 0.1);
  EXPECT_NEAR(tflops(c.gpu("rtx-4090"), Precision::fp16), 165.2, 0.1);
  EXPECT_NEAR(tflops(c.gpu("rtx-3090"), Precision::fp16), 71.0, 0.1);
  EXPECT_TRUE(c.gpu("rtx-5090").fp32_acc_half_rate);
  // Workstation and datacentre Ada parts run FP32 accumulate at full rate.
  EXPECT_FALSE(c.gpu("rtx-6000-ada").fp32_acc_half_rate);
  EXPECT_FALSE(c.gpu("l40s").fp32_acc_half_rate);
  EXPECT_FALSE(c.gpu("t4").fp32_acc_half_rate);
}

TEST(GpuData, SeedErrataP100IsTheSxm2Part) {
  // Seeds quote 9.3 FP32 / 18.7 FP16 TFLOP/s: the P100 PCIe card. SXM2 at 1,480 MHz:
  // 3,584 lanes x 2 x 1.48 GHz = 10.6; FP16 half2 (FP16 accumulate) 21.2.
  const Gpu& p100 = default_catalog().gpu("p100");
  EXPECT_EQ(p100.id, "p100-sxm2");
  EXPECT_NEAR(*vector_fp32_flops_per_s(p100, *p100.boost_clock_hz, true) / kTera, 10.6, 0.05);
  EXPECT_NEAR(tflops(p100, Precision::fp32), 10.6, 0.01);
  EXPECT_NEAR(tflops(p100, Precision::fp16), 10.6, 0.01);  // FP32 accumulate
  EXPECT_NEAR(p100.fp16_acc_dense_flops_per_s[index_of(Precision::fp16)] / kTera, 21.2, 0.01);
}

TEST(GpuData, SeedErrataV100IsTheSxm2Part) {
  // Seeds quote 14 FP32 / 112 FP16 TFLOP/s (V100 PCIe, 1,380 MHz). SXM2 at 1,530 MHz:
  // 640 tensor cores x 128 FLOP/clk x 1.53 GHz = 125.3; 5,120 x 2 x 1.53 = 15.7.
  const Gpu& v100 = default_catalog().gpu("v100");
  EXPECT_NEAR(tflops(v100, Precision::fp16), 125.0, 0.5);
  EXPECT_NEAR(tflops(v100, Precision::fp32), 15.7, 0.05);
  EXPECT_NEAR(*tensor_flops_per_sm_per_cycle(v100, Precision::fp16), 1024.0, 5.0);  // 8 TCs x 128
}

TEST(GpuData, SeedErrata2080TiTrainsAtTheFp32AccumulateRate) {
  // Seeds quote 107 TFLOP/s FP16 tensor: the FP16-accumulate rate. FP32 accumulate is half: 53.8.
  const Gpu& g = default_catalog().gpu("rtx-2080-ti");
  EXPECT_NEAR(tflops(g, Precision::fp16), 53.8, 0.05);
  EXPECT_NEAR(g.fp16_acc_dense_flops_per_s[index_of(Precision::fp16)] / kTera, 107.6, 0.05);
}

TEST(GpuData, SeedErrataB200DenseIsHalfTheHeadline) {
  // Seeds quote B200 "FP8 9 PFLOPS, FP16/BF16 4.5 PFLOPS, FP4 20 PFLOPS": sparse figures (FP4 20 is
  // GB200's). HGX B200 dense: 2.25 / 4.5 / 9 PFLOP/s.
  const Gpu& b200 = default_catalog().gpu("b200");
  EXPECT_NEAR(tflops(b200, Precision::bf16), 2250, 1);
  EXPECT_NEAR(tflops(b200, Precision::fp8), 4500, 1);
  EXPECT_NEAR(tflops(b200, Precision::fp4), 9000, 1);
  EXPECT_NEAR(b200.sparse(Precision::fp8) / kTera, 9000, 1);
}

TEST(GpuData, UsableMemoryFollowsNvidiaSmi) {
  // nvidia-smi memory.total: H100 81,559 MiB; H200 143,771 MiB; B200 183,359 MiB (NVIDIA's
  // "180 GB" is binary); A100 80GB 81,920 MiB.
  const Catalog& c = default_catalog();
  EXPECT_NEAR(c.gpu("h100-sxm").usable_memory_bytes / kGiB, 79.6, 0.05);
  EXPECT_NEAR(c.gpu("h200-sxm").usable_memory_bytes / kGiB, 140.4, 0.05);
  EXPECT_NEAR(c.gpu("b200").usable_memory_bytes / kGiB, 179.1, 0.05);
  EXPECT_NEAR(c.gpu("a100-sxm-80gb").usable_memory_bytes / kGiB, 80.0, 0.05);  // ECC on costs HBM nothing
  // GB200 ships with 186 GB per GPU (13.4 TB per NVL72), not the early 192 GB (13.8 TB).
  EXPECT_NEAR(c.gpu("gb200").memory_bytes / 1e9, 186.0, 0.5);
}

TEST(GpuData, NonGpuRowsAreMarked) {
  const Catalog& c = default_catalog();
  for (const char* id : {"tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e"}) EXPECT_EQ(c.gpu(id).device_kind, "tpu") << id;
  EXPECT_EQ(c.gpu("gaudi2").device_kind, "hpu");
  EXPECT_EQ(c.gpu("gaudi3").device_kind, "hpu");
  EXPECT_EQ(c.gpu("trainium2").device_kind, "npu");
}

}  // namespace
}  // namespace gpuplan
