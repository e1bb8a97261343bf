// Roofline with shape-dependent GEMM efficiency, and the fitted efficiency data it reads.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/error.h"
#include "cost/roofline.h"

namespace gpuplan {
namespace {

Gpu test_gpu() {
  Gpu g;
  g.id = "test";
  g.architecture = "Hopper GH100";
  g.sm_count = 132;
  g.dense_flops_per_s[index_of(Precision::bf16)] = 1000e12;
  g.dense_flops_per_s[index_of(Precision::fp8)] = 2000e12;
  g.memory_bw_bytes_per_s = 3e12;
  return g;
}

Efficiency test_efficiency() {
  Efficiency e;
  e.id = "test";
  e.gemm_peak_fraction[index_of(Precision::bf16)] = 0.8;
  e.gemm_peak_fraction[index_of(Precision::fp8)] = 0.6;
  e.tile_m = 128;
  e.tile_n = 256;
  e.k_half = 128;
  e.attention_fwd_fraction = 0.6;
  e.attention_bwd_fraction = 0.5;
  e.memory_bw_fraction = 0.8;
  return e;
}

TEST(Roofline, FullWavesOfTilesRunAtThePeakFraction) {
  const RooflineDevice dev = make_roofline_device(test_gpu(), test_efficiency());
  // 132 tiles of 128×256: exactly one wave; K/(K+128) = 0.9 at K = 1,152.
  EXPECT_NEAR(gemm_shape_efficiency(dev, 132 * 128, 256, 1152, 1), 0.9, 1e-12);
  // One tile too many: a second, almost empty wave halves the useful fraction.
  EXPECT_NEAR(gemm_shape_efficiency(dev, 133 * 128, 256, 1e12, 1), 133.0 / 264.0, 1e-6);
  // Hand: 2·16896·256·1152 FLOP at 800 TFLOP/s × 0.9.
  const double t = gemm_time_s(dev, Precision::bf16, 132 * 128, 256, 1152, 1, 0);
  EXPECT_NEAR(t, 2.0 * 16896 * 256 * 1152 / (800e12 * 0.9), 1e-15);
}

TEST(Roofline, SkinnyGemmsAreMemoryBound) {
  const RooflineDevice dev = make_roofline_device(test_gpu(), test_efficiency());
  // M = 1 (decode-like): 2·N·K FLOPs against reading N·K weights; bandwidth wins.
  const double n = 8192;
  const double k = 8192;
  const double bytes = n * k * 2;
  EXPECT_NEAR(gemm_time_s(dev, Precision::bf16, 1, n, k, 1, bytes), bytes / (3e12 * 0.8), 1e-12);
}

TEST(Roofline, LowPrecisionGemmsUseTheirOwnPeak) {
  const RooflineDevice dev = make_roofline_device(test_gpu(), test_efficiency());
  Op op;
  op.kind = OpKind::gemm;
  op.m = 132 * 128;
  op.n = 256 * 4;
  op.k = 8192;
  op.fwd_flops = 2 * op.m * op.n * op.k;
  op.low_precision = true;
  const OpTime bf16 = op_time(dev, op, Precision::bf16, Precision::bf16);
  const OpTime fp8 = op_time(dev, op, Precision::fp8, Precision::bf16);
  // fp8 rate: 2000 × 0.6 = 1200 against 800 TFLOP/s.
  EXPECT_NEAR(bf16.fwd_s / fp8.fwd_s, 1.5, 1e-9);
  EXPECT_GT(bf16.bwd_s, 1.9 * bf16.fwd_s);  // dgrad + wgrad
}

TEST(Roofline, PropertiesMoreBandwidthNeverSlowerAndBiggerNeverFaster) {
  const Gpu gpu = test_gpu();
  Gpu faster = gpu;
  faster.memory_bw_bytes_per_s *= 2;
  const RooflineDevice a = make_roofline_device(gpu, test_efficiency());
  const RooflineDevice b = make_roofline_device(faster, test_efficiency());
  double previous = 0;
  for (double m = 1; m <= 65536; m *= 2) {
    const double bytes = (m * 4096 + 4096 * 4096 + m * 4096) * 2;
    const double ta = gemm_time_s(a, Precision::bf16, m, 4096, 4096, 1, bytes);
    const double tb = gemm_time_s(b, Precision::bf16, m, 4096, 4096, 1, bytes);
    EXPECT_LE(tb, ta) << m;
    EXPECT_GE(ta, previous) << m;
    previous = ta;
  }
}

TEST(Roofline, EmbeddedEfficiencyEntriesCoverTheCatalog) {
  const Catalog& c = default_catalog();
  ASSERT_FALSE(c.efficiencies.empty());
  for (const Gpu& g : c.gpus) {
    const Efficiency* e = efficiency_for(c.efficiencies, g);
    ASSERT_NE(e, nullptr) << g.id;
    EXPECT_GT(e->gemm_fraction(Precision::bf16), 0) << g.id;
  }
  const Efficiency* h100 = efficiency_for(c.efficiencies, c.gpu("h100-sxm"));
  EXPECT_EQ(h100->id, "hopper");
  Gpu tpu;
  tpu.architecture = "TPU v5p";
  EXPECT_EQ(efficiency_for(c.efficiencies, tpu)->id, "generic");
}

TEST(Roofline, BadEfficiencyFilesAreErrors) {
  Catalog c;
  const std::string text = R"toml(kind = "efficiency"
id = "x"
name = "x"
architectures = ["Hopper"]
source = "test"
retrieved = "2026-11-22"
[gemm]
tile_m = 128
tile_n = 128
[gemm.peak_fraction]
bf16 = 1.3
[attention]
fwd_peak_fraction = 0.5
bwd_peak_fraction = 0.5
[memory]
bw_fraction = 0.8
)toml";
  EXPECT_THROW(load_catalog_text(c, text, "x.toml", false), Error);
}

// The one roofline (cost/roofline.h): max(memory, compute) without a norm; with p = 2 the
// smooth knee of 3 s and 4 s is sqrt(9 + 16) = 5 s; a large p approaches the max.
TEST(Roofline, AGroupedGemmIsOneKernelIssue) {
  Efficiency e = test_efficiency();
  e.kernel_launch_s = 40e-6;
  const RooflineDevice dev = make_roofline_device(test_gpu(), e);
  Op op;
  op.kind = OpKind::gemm;
  op.m = 2048;
  op.n = 1536;
  op.k = 2048;
  op.count = 16;
  // 16 separate GEMMs: 16 issues forward, 32 backward (dgrad + wgrad each).
  OpTime t = op_time(dev, op, Precision::bf16, Precision::bf16);
  EXPECT_DOUBLE_EQ(t.host_fwd_s, 16 * 40e-6);
  EXPECT_DOUBLE_EQ(t.host_bwd_s, 32 * 40e-6);
  // One grouped kernel over the 16 experts: one issue forward, two backward; same GPU time.
  op.grouped = true;
  const OpTime g = op_time(dev, op, Precision::bf16, Precision::bf16);
  EXPECT_DOUBLE_EQ(g.host_fwd_s, 40e-6);
  EXPECT_DOUBLE_EQ(g.host_bwd_s, 80e-6);
  EXPECT_DOUBLE_EQ(g.fwd_s, t.fwd_s);
}

TEST(Roofline, OneRooflineFunctionWithOptionalSmoothKnee) {
  EXPECT_EQ(roofline_time_s(3, 4), 4);
  EXPECT_EQ(roofline_time_s(4, 3, 0), 4);
  EXPECT_DOUBLE_EQ(roofline_time_s(3, 4, 2), 5);
  EXPECT_DOUBLE_EQ(roofline_time_s(1, 1, 1), 2);  // p = 1: no overlap at all
  EXPECT_NEAR(roofline_time_s(3, 4, 64), 4, 1e-6);
  EXPECT_GE(roofline_time_s(3, 4, 8), 4);  // a norm is never below the max
}

}  // namespace
}  // namespace gpuplan
