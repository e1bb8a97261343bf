// Roofline with shape-dependent GEMM efficiency, and the fitted efficiency data it reads.
#include "cost/roofline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/framework.h"
#include "core/error.h"

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

// A GEMM op of m × n × k, `count` of them (the local experts of a grouped GEMM).
Op gemm_op(double m, double n, double k, double count = 1) {
  Op op;
  op.kind = OpKind::gemm;
  op.m = m;
  op.n = n;
  op.k = k;
  op.count = count;
  return op;
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
  Op op = gemm_op(132 * 128, 256 * 4, 8192);
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

// data/fitted/efficiency/cdna4.toml: the MI355X (CDNA 4) runs attention at AMD's measured asm
// kernel rates, not the generic guess; the MI300X (CDNA 3) keeps the generic entry. Llama 3.1 8B,
// one micro-batch of 2 × 8,192 tokens, 32 heads of 128: causal keys per query 4,096.
TEST(Roofline, Cdna4AttentionIsAmdsMeasuredAsmKernel) {
  const Catalog& c = default_catalog();
  const Gpu& mi355x = c.gpu("mi355x");
  const Efficiency* e = efficiency_for(c.efficiencies, mi355x);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->id, "cdna4");
  EXPECT_TRUE(e->attention_measured);
  EXPECT_EQ(efficiency_for(c.efficiencies, c.gpu("mi300x"))->id, "generic");
  const RooflineDevice dev = make_roofline_device(mi355x, *e, default_framework(c));
  Op attention;
  attention.kind = OpKind::attention;
  attention.m = 4096;
  attention.n = 32;
  attention.k = 128;
  attention.fwd_flops = 2.0 * 16384 * 4096 * 32 * 256;  // 1.0995e12
  attention.bwd_flops = 2.5 * attention.fwd_flops;
  attention.exps = 16384.0 * 4096 * 32;
  const OpTime t = op_time(dev, attention, Precision::bf16, Precision::bf16);
  // Forward: 2,516.6e12 × 0.593 × 4,096 / (4,096 + 648) = 1.28850e15 FLOP/s → 0.8533 ms.
  EXPECT_NEAR(t.fwd_s, 1.0995116e12 / 1.28850e15, 1e-6);
  // Backward: 2.5 × 1.0995e12 / (2,516.6e12 × 0.500 × 0.863406 = 1.08642e15) → 2.5301 ms.
  EXPECT_NEAR(t.bwd_s, 2.7487790e12 / 1.08642e15, 2e-6);
  // GEMMs keep the MAMF rule: 1,565 / 2,516.6 × 0.69 = 0.4291 of the fp8 peak (5,033.2).
  EXPECT_NEAR(dev.gemm_flops_per_s[index_of(Precision::fp8)], 5033.2e12 * 1565.0 / 2516.6 * 0.69, 1e9);
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

TEST(Roofline, AGroupedGemmIssuesOneGemmPerExpert) {
  RooflineDevice dev = make_roofline_device(test_gpu(), test_efficiency());
  dev.kernel_launch_s = 40e-6;  // the framework's host time per kernel
  Op op = gemm_op(2048, 1536, 2048, 16);
  // Transformer Engine's grouped GEMM: one cuBLAS GEMM per expert, 16 issues forward, 32
  // backward (dgrad + wgrad each).
  const OpTime t = op_time(dev, op, Precision::bf16, Precision::bf16);
  EXPECT_DOUBLE_EQ(t.host_fwd_s, 16 * 40e-6);
  EXPECT_DOUBLE_EQ(t.host_bwd_s, 32 * 40e-6);
  // Half the experts: half the host time.
  op.count = 8;
  const OpTime h = op_time(dev, op, Precision::bf16, Precision::bf16);
  EXPECT_DOUBLE_EQ(h.host_fwd_s, 8 * 40e-6);
}

// A memory-bound op is one fused kernel (one host issue forward, two backward, 40 µs each)
// unless the framework runs it as an eager chain (Op::kernels_fwd, kernels_bwd: Megatron-Core's
// per-expert bias over 16 local experts is 33 kernels forward, 82 backward), whose further
// kernels cost one ATen op's host time each (25 µs): 40 + 32 × 25 = 840 µs forward, 80 + 80 ×
// 25 = 2,080 µs backward. Its GPU time is its bytes either way.
TEST(Roofline, AnEagerChainIssuesOneKernelPerOp) {
  RooflineDevice dev = make_roofline_device(test_gpu(), test_efficiency());
  dev.kernel_launch_s = 40e-6;
  dev.eager_kernel_s = 25e-6;
  Op op;
  op.kind = OpKind::memory;
  op.fwd_bytes = 1e9;
  op.bwd_bytes = 2e9;
  const OpTime fused = op_time(dev, op, Precision::bf16, Precision::bf16);
  EXPECT_DOUBLE_EQ(fused.host_fwd_s, 40e-6);
  EXPECT_DOUBLE_EQ(fused.host_bwd_s, 2 * 40e-6);
  op.kernels_fwd = 33;
  op.kernels_bwd = 82;
  const OpTime chain = op_time(dev, op, Precision::bf16, Precision::bf16);
  EXPECT_NEAR(chain.host_fwd_s, 840e-6, 1e-15);
  EXPECT_NEAR(chain.host_bwd_s, 2080e-6, 1e-15);
  EXPECT_DOUBLE_EQ(chain.fwd_s, fused.fwd_s);
  EXPECT_DOUBLE_EQ(chain.bwd_s, fused.bwd_s);
  Op other = op;
  other.kernels_bwd = 81;
  EXPECT_FALSE(same_op_time_inputs(op, other));
}

// A batched GEMM (torch.bmm / baddbmm over sequences × heads: materialised attention, workload/
// ops.cpp) is one kernel: one host issue forward, two backward, whatever its count, and all its
// GEMMs' tiles share the waves. 24 GEMMs of 2048 × 2048 (K = 128): 16 × 8 = 128 tiles each,
// 3,072 in all on 132 SMs, 24 waves, 3,072 / 3,168 of them useful; K/(K + 128) = 0.5.
TEST(Roofline, ABatchedGemmIsOneKernel) {
  RooflineDevice dev = make_roofline_device(test_gpu(), test_efficiency());
  dev.kernel_launch_s = 40e-6;
  Op op = gemm_op(2048, 2048, 128, 24);
  op.batched = true;
  const OpTime t = op_time(dev, op, Precision::bf16, Precision::bf16);
  EXPECT_DOUBLE_EQ(t.host_fwd_s, 40e-6);
  EXPECT_DOUBLE_EQ(t.host_bwd_s, 2 * 40e-6);
  const double flops = 2.0 * 2048 * 2048 * 128 * 24;
  EXPECT_NEAR(t.fwd_s, flops / (800e12 * (3072.0 / 3168.0) * 0.5), 1e-12 * t.fwd_s);
  // The same GEMMs launched one by one: 24 issues, four in flight (512 tiles, 4 waves).
  op.batched = false;
  const OpTime separate = op_time(dev, op, Precision::bf16, Precision::bf16);
  EXPECT_DOUBLE_EQ(separate.host_fwd_s, 24 * 40e-6);
  EXPECT_NEAR(separate.fwd_s, flops / (800e12 * (512.0 / 528.0) * 0.5), 1e-12 * t.fwd_s);
}

// Transformer Engine issues one cuBLAS GEMM per local expert over four streams, so the tiles
// of at most four expert GEMMs share the SMs at once (cost/roofline.cpp,
// expert_gemms_in_flight). Eight experts of 5,120 × 256 (K = 1,152): 40 tiles of 128 × 256
// each; four in flight are 160 tiles on 132 SMs, two waves, 160 / 264 = 0.606 of them
// useful (one launch over all eight would be 320 tiles in three waves, 0.808); K/(K + 128) = 0.9.
TEST(Roofline, ExpertGemmsQuantiseFourAtATime) {
  const RooflineDevice dev = make_roofline_device(test_gpu(), test_efficiency());
  Op op = gemm_op(5120, 256, 1152, 8);
  const OpTime t = op_time(dev, op, Precision::bf16, Precision::bf16);
  const double flops = 2.0 * 5120 * 256 * 1152 * 8;
  EXPECT_NEAR(t.fwd_s, flops / (800e12 * (160.0 / 264.0) * 0.9), 1e-12 * t.fwd_s);
  // One launch over the eight would have been 0.808 of the waves: the op is slower than that.
  EXPECT_GT(t.fwd_s, flops / (800e12 * (320.0 / 396.0) * 0.9));
  // Four experts or fewer: the same as one launch over them.
  op.count = 2;
  EXPECT_NEAR(op_time(dev, op, Precision::bf16, Precision::bf16).fwd_s,
              gemm_time_s(dev, Precision::bf16, 5120, 256, 1152, 2, 0), 1e-18);
}

// The one roofline (cost/roofline.h): max(memory, compute) without a norm; with p = 2 the
// smooth knee of 3 s and 4 s is sqrt(9 + 16) = 5 s; a large p approaches the max.
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

namespace gpuplan {
namespace {

Framework test_framework() {
  Framework f;
  f.id = "fw";
  f.kernel_launch_s = 20e-6;
  f.attention_scale = 0.5;
  f.memory_scale = 0.75;
  return f;
}

// Softmax exponentials (cost/roofline.cpp): exp rate = dense bf16 peak × exp / tensor FLOPs per
// clock per SM; the attention time adds exps / rate to the MMA time, forward and backward.
TEST(Roofline, SoftmaxExponentialsAddToAttentionTime) {
  Gpu gpu = test_gpu();
  Efficiency e = test_efficiency();
  e.attention_exp_per_clk_per_sm = 16;
  e.attention_tensor_flops_per_clk_per_sm = 4096;
  // Hand: 1000 TFLOP/s × 16 / 4096 = 3.90625e12 exponentials per second.
  EXPECT_NEAR(softmax_exp_per_s(gpu, e), 3.90625e12, 1);
  // A GPU with twice the SFU rate per SM (Blackwell Ultra) has twice the exponential rate.
  Gpu ultra = gpu;
  ultra.sfu_exp_per_clk_per_sm = 32;
  EXPECT_NEAR(softmax_exp_per_s(ultra, e), 7.8125e12, 1);

  const Framework fw = test_framework();
  const RooflineDevice dev = make_roofline_device(gpu, e, &fw);
  Op op;
  op.kind = OpKind::attention;
  op.m = 0;  // no span term
  op.fwd_flops = 1e12;
  op.bwd_flops = 2.5e12;
  op.exps = 3.90625e9;  // 1 ms of exponentials
  const OpTime t = op_time(dev, op, Precision::bf16, Precision::bf16);
  // Hand: MMA at 1000 TFLOP/s × 0.6 × 0.5 (framework's attention scale) = 300 TFLOP/s:
  // forward 1e12 / 300e12 = 3.333 ms + 1 ms; backward 2.5e12 / (1000e12 × 0.5 × 0.5) = 10 ms + 1 ms.
  EXPECT_NEAR(t.fwd_s, 1e12 / 300e12 + 1e-3, 1e-12);
  EXPECT_NEAR(t.bwd_s, 2.5e12 / 250e12 + 1e-3, 1e-12);
  // Twice the SFU rate halves the exponential part only.
  const OpTime u = op_time(make_roofline_device(ultra, e, &fw), op, Precision::bf16, Precision::bf16);
  EXPECT_NEAR(u.fwd_s, 1e12 / 300e12 + 0.5e-3, 1e-12);
  // Without a framework (the serving model) there is no softmax term and no host time.
  const RooflineDevice serving = make_roofline_device(gpu, e);
  EXPECT_EQ(serving.exp_per_s, 0);
  EXPECT_EQ(serving.kernel_launch_s, 0);
}

// Tensor clock at the power limit (cost/roofline.cpp power_clock_factor): relative to the family's
// reference part, sustained clock = (watts per SM over the reference's)^(1 / exponent), over the
// datasheet clock ratio (bf16 peak per SM over the reference's), capped at the datasheet clock
// (1 / the reference's clock fraction); training scales every tensor rate and the SFUs by it,
// memory-bound ops keep theirs.
TEST(Roofline, TensorClockFollowsThePowerLimitInTraining) {
  Gpu gpu = test_gpu();  // 1,000 TFLOP/s dense bf16 on 132 SMs
  Efficiency e = test_efficiency();
  e.attention_exp_per_clk_per_sm = 16;
  e.attention_tensor_flops_per_clk_per_sm = 4096;
  gpu.tdp_w = 1440;
  EXPECT_DOUBLE_EQ(power_clock_factor(gpu, e), 1);  // the family gives no power figure
  // A reference of 1,000 W on 132 SMs and 1,000 TFLOP/s, sustaining 0.8 of its datasheet clock.
  e.power_reference_tdp_w = 1000;
  e.power_reference_sm_count = 132;
  e.power_reference_bf16_flops_per_s = 1000e12;
  e.power_reference_clock_fraction = 0.8;
  e.power_clock_exponent = 2;
  // Hand: same SMs and peak, 1.44× the watts per SM: clock (1.44)^(1/2) = 1.2.
  EXPECT_NEAR(power_clock_factor(gpu, e), 1.2, 1e-12);
  // The same watts on twice the SMs at the same peak: clock (0.5)^(1/2) = 0.7071 on a datasheet
  // clock of (1000/264)/(1000/132) = 0.5 → sustained / datasheet ratio 1.414, capped at 1/0.8.
  Gpu wide = gpu;
  wide.sm_count = 264;
  wide.tdp_w = 1000;
  EXPECT_NEAR(power_clock_factor(wide, e), 1.25, 1e-12);
  // A faster datasheet clock at the same power: peak 1,100 TFLOP/s → 1 / 1.1 = 0.909.
  Gpu boosted = gpu;
  boosted.tdp_w = 1000;
  boosted.dense_flops_per_s[index_of(Precision::bf16)] = 1100e12;
  EXPECT_NEAR(power_clock_factor(boosted, e), 1 / 1.1, 1e-12);
  // No published TDP: factor 1.
  Gpu unknown = gpu;
  unknown.tdp_w = 0;
  EXPECT_DOUBLE_EQ(power_clock_factor(unknown, e), 1);
  Gpu cool = gpu;
  cool.tdp_w = 2250;  // (2.25)^(1/2) = 1.5 > 1 / 0.8: the datasheet clock, 1.25
  EXPECT_NEAR(power_clock_factor(cool, e), 1.25, 1e-12);
  // A stated clock that agrees with the family's 4,096 FLOPs per clock per SM keeps the rule
  // (1,000 TFLOP/s / (132 × 1.85 GHz) = 4,095); one whose peak says 16× fewer (a GeForce part's
  // half-rate tensor core: 1,000 TFLOP/s / (132 × 29.6 GHz) = 256) is not modelled: factor 1.
  Gpu stated = gpu;
  stated.boost_clock_hz = 1.85e9;
  EXPECT_NEAR(power_clock_factor(stated, e), 1.2, 1e-12);
  Gpu geforce = gpu;
  geforce.boost_clock_hz = 29.6e9;
  EXPECT_DOUBLE_EQ(power_clock_factor(geforce, e), 1);

  const Framework fw = test_framework();
  const RooflineDevice dev = make_roofline_device(gpu, e, &fw);
  // Hand: GEMMs 1000 TFLOP/s × 0.8 × 1.2 = 960 TFLOP/s; fp8 2000 × 0.6 × 1.2 = 1440;
  // attention forward 1000 × 0.6 × 0.5 (framework) × 1.2 = 360; exponentials 3.90625e12 × 1.2;
  // HBM 3e12 × 0.8 × 0.75 unchanged.
  EXPECT_NEAR(dev.gemm_flops_per_s[index_of(Precision::bf16)], 960e12, 1);
  EXPECT_NEAR(dev.gemm_flops_per_s[index_of(Precision::fp8)], 1440e12, 1);
  EXPECT_NEAR(dev.attention_fwd_flops_per_s[index_of(Precision::bf16)], 360e12, 1);
  EXPECT_NEAR(dev.exp_per_s, 3.90625e12 * 1.2, 1);
  EXPECT_NEAR(dev.memory_bw_bytes_per_s, 3e12 * 0.8 * 0.75, 1);
  // A rate never passes the dense peak: 0.9 × 1.25 → 1.
  Efficiency high = e;
  high.gemm_peak_fraction[index_of(Precision::bf16)] = 0.9;
  EXPECT_NEAR(make_roofline_device(cool, high, &fw).gemm_flops_per_s[index_of(Precision::bf16)], 1000e12, 1);
  // The serving model (no framework) keeps the fitted fractions as they are.
  EXPECT_NEAR(make_roofline_device(gpu, e).gemm_flops_per_s[index_of(Precision::bf16)], 800e12, 1);
}

// The framework's software figures: host time per kernel, and factors on the family's
// attention and HBM fractions (products capped at 1).
TEST(Roofline, FrameworkScalesTheSoftwareFigures) {
  const Framework fw = test_framework();
  const RooflineDevice dev = make_roofline_device(test_gpu(), test_efficiency(), &fw);
  EXPECT_DOUBLE_EQ(dev.kernel_launch_s, 20e-6);
  EXPECT_NEAR(dev.attention_fwd_flops_per_s[index_of(Precision::bf16)], 1000e12 * 0.6 * 0.5, 1);
  EXPECT_NEAR(dev.memory_bw_bytes_per_s, 3e12 * 0.8 * 0.75, 1);
  // GEMMs are the silicon's: unchanged by the framework.
  EXPECT_NEAR(dev.gemm_flops_per_s[index_of(Precision::bf16)], 800e12, 1);
  Framework fast = fw;
  fast.memory_scale = 1.5;
  EXPECT_NEAR(make_roofline_device(test_gpu(), test_efficiency(), &fast).memory_bw_bytes_per_s, 3e12, 1);
}

// A framework whose attention kernel was measured on the GPU's family ([attention.measured.<family>])
// uses the measurement instead of the family's fractions × its scale, and its masked rate.
TEST(Roofline, MeasuredFrameworkAttentionReplacesTheFamilysFractions) {
  Framework fw = test_framework();
  fw.measured_attention.push_back({"test", 0.9, 0.6, 1024, 0.5});
  const RooflineDevice dev = make_roofline_device(test_gpu(), test_efficiency(), &fw);
  // Hand: 1000 TFLOP/s × 0.9 forward, × 0.6 backward; no attention_scale (0.5) on a measurement.
  EXPECT_NEAR(dev.attention_fwd_flops_per_s[index_of(Precision::bf16)], 900e12, 1);
  EXPECT_NEAR(dev.attention_bwd_flops_per_s[index_of(Precision::bf16)], 600e12, 1);
  EXPECT_DOUBLE_EQ(dev.attention_kv_half, 1024);
  EXPECT_DOUBLE_EQ(dev.attention_masked_rate_fraction, 0.5);
  Op op;
  op.kind = OpKind::attention;
  op.m = 1024;  // keys per query = kv_half: half the long-span rate
  op.fwd_flops = 0.9e12;
  op.bwd_flops = 2.4e12;
  // Hand (no exponentials: test efficiency has no SFU figures): forward 0.9e12 / (900e12 × 0.5) =
  // 2 ms; backward 2.4e12 / (600e12 × 0.5) = 8 ms.
  const OpTime t = op_time(dev, op, Precision::bf16, Precision::bf16);
  EXPECT_NEAR(t.fwd_s, 2e-3, 1e-12);
  EXPECT_NEAR(t.bwd_s, 8e-3, 1e-12);
  // The same op with a materialized mask runs at half that rate again: 4 ms and 16 ms.
  op.masked = true;
  const OpTime m = op_time(dev, op, Precision::bf16, Precision::bf16);
  EXPECT_NEAR(m.fwd_s, 4e-3, 1e-12);
  EXPECT_NEAR(m.bwd_s, 16e-3, 1e-12);
  // Another family: the family's fractions × the framework's scale, as before; a mask costs no rate.
  Efficiency other = test_efficiency();
  other.id = "other";
  const RooflineDevice o = make_roofline_device(test_gpu(), other, &fw);
  EXPECT_NEAR(o.attention_fwd_flops_per_s[index_of(Precision::bf16)], 1000e12 * 0.6 * 0.5, 1);
  EXPECT_DOUBLE_EQ(o.attention_masked_rate_fraction, 1);
}

// A precision's clock at the power limit (power_clock_factor with a precision): an SM's power at
// one clock goes as its tensor FLOPs per clock ^ γ, so a part doing more fp4 work per clock than
// the reference part (Blackwell Ultra: fp4 = 6 × bf16 against the B200's 4 ×) runs its fp4 GEMMs
// at a lower clock; bf16 and fp8, at the reference's ratios, keep the bf16 factor.
TEST(Roofline, APrecisionWithMoreWorkPerClockRunsAtALowerClock) {
  Gpu gpu = test_gpu();  // 1,000 / 2,000 TFLOP/s bf16 / fp8 on 132 SMs
  gpu.dense_flops_per_s[index_of(Precision::fp4)] = 6000e12;
  gpu.tdp_w = 1000;
  Efficiency e = test_efficiency();
  e.gemm_peak_fraction[index_of(Precision::fp4)] = 0.5;
  e.power_reference_tdp_w = 1000;
  e.power_reference_sm_count = 132;
  e.power_reference_bf16_flops_per_s = 1000e12;
  e.power_reference_clock_fraction = 0.8;
  e.power_clock_exponent = 2;
  e.power_reference_flops_per_s[index_of(Precision::bf16)] = 1000e12;
  e.power_reference_flops_per_s[index_of(Precision::fp8)] = 2000e12;
  e.power_reference_flops_per_s[index_of(Precision::fp4)] = 4000e12;
  // Without the precision exponent every precision has the bf16 factor: the same part, 1.
  EXPECT_DOUBLE_EQ(power_clock_factor(gpu, e, Precision::fp4), 1);
  e.power_precision_exponent = 0.216;
  // Hand: fp4 work per clock (6000 / 1000) / (4000 / 1000) = 1.5 the reference's, power per clock
  // 1.5^0.216 = 1.0916, clock (1 / 1.0916)^(1/2) = 1.5^(-0.108) = 0.95716; bf16 and fp8 stay 1.
  EXPECT_NEAR(power_clock_factor(gpu, e, Precision::fp4), std::pow(1.5, -0.108), 1e-12);
  EXPECT_NEAR(std::pow(1.5, -0.108), 0.95716, 1e-5);
  EXPECT_DOUBLE_EQ(power_clock_factor(gpu, e, Precision::fp8), 1);
  EXPECT_DOUBLE_EQ(power_clock_factor(gpu, e, Precision::bf16), 1);
  // With 1.44 × the watts per SM the bf16 clock is 1.2 and fp4's 1.2 × 0.95716 = 1.14859.
  gpu.tdp_w = 1440;
  EXPECT_NEAR(power_clock_factor(gpu, e, Precision::bf16), 1.2, 1e-12);
  EXPECT_NEAR(power_clock_factor(gpu, e, Precision::fp4), 1.2 * std::pow(1.5, -0.108), 1e-12);
  // Training's device: fp4 GEMMs 6,000 × 0.5 × 1.14859 = 3,445.8 TFLOP/s, fp8 2,000 × 0.6 × 1.2;
  // the answer's tensor clock stays the bf16 one.
  const Framework fw = test_framework();
  const RooflineDevice dev = make_roofline_device(gpu, e, &fw);
  EXPECT_NEAR(dev.gemm_flops_per_s[index_of(Precision::fp4)], 6000e12 * 0.5 * 1.2 * std::pow(1.5, -0.108), 1);
  EXPECT_NEAR(dev.gemm_flops_per_s[index_of(Precision::fp8)], 1440e12, 1);
  EXPECT_NEAR(dev.gemm_clock_factor[index_of(Precision::fp4)], 1.2 * std::pow(1.5, -0.108), 1e-12);
  EXPECT_NEAR(dev.tensor_clock_factor, 1.2, 1e-12);
}

// A fallback entry derives the GEMM fraction from the GPU's measured achievable matmul rate.
TEST(Roofline, FallbackGemmFractionFollowsTheMeasuredRate) {
  Gpu gpu = test_gpu();
  Efficiency e = test_efficiency();
  e.achievable_gemm_share = 0.7;
  // No measurement: the entry's own fraction.
  EXPECT_DOUBLE_EQ(gemm_peak_fraction(gpu, e, Precision::bf16), 0.8);
  // Hand: 500 of 1000 TFLOP/s measured × 0.7 = 0.35; fp8, not measured, follows bf16's ratio.
  gpu.achievable_flops_per_s[index_of(Precision::bf16)] = 500e12;
  EXPECT_DOUBLE_EQ(gemm_peak_fraction(gpu, e, Precision::bf16), 0.35);
  EXPECT_DOUBLE_EQ(gemm_peak_fraction(gpu, e, Precision::fp8), 0.35);
  gpu.achievable_flops_per_s[index_of(Precision::fp8)] = 1800e12;
  EXPECT_DOUBLE_EQ(gemm_peak_fraction(gpu, e, Precision::fp8), 0.9 * 0.7);
  // A fitted entry (no share) ignores the measurement.
  e.achievable_gemm_share = 0;
  EXPECT_DOUBLE_EQ(gemm_peak_fraction(gpu, e, Precision::bf16), 0.8);
}

// The exact forms the training evaluator uses (docs/performance.md, "A cold plan, fifth
// round"): the tile and wave counts without std::ceil, and a GEMM op's forward, dgrad and wgrad
// sharing the tile counts of M, N and K, give the plain formula's values to the bit.
double roofline_test_reference_waves(double m, double n, double count, double tm, double tn, double sms) {
  const double tiles = std::ceil(m / tm) * std::ceil(n / tn) * count;
  const double split = tiles < sms ? std::floor(sms / tiles) : 1;
  const double waves = std::ceil(tiles * split / sms);
  return (m * n * count * split) / (waves * sms * tm * tn);
}

double roofline_test_reference_shape(const RooflineDevice& dev, double m, double n, double k, double count) {
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0) return 1;
  double waves = roofline_test_reference_waves(m, n, count, dev.tile_m, dev.tile_n, dev.sm_count);
  if (dev.tile_n != dev.tile_m) {
    waves = std::max(waves, roofline_test_reference_waves(m, n, count, dev.tile_n, dev.tile_m, dev.sm_count));
  }
  return waves * k / (k + dev.k_half);
}

// The same double, sign of zero included; any NaN matches any NaN (a 1e300 dimension overflows
// both forms alike).
bool roofline_test_same(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b));
}

// Shapes a plan gives its GEMMs: whole tile multiples, one row past them, fractional MoE rows
// per expert, fractional expert counts, tiny and huge dimensions (past 2^52 tiles), zero and
// negative (the degenerate case).
std::vector<double> roofline_test_dimensions() {
  std::vector<double> dims = {0,
                              -3,
                              1e-3,
                              0.5,
                              1,
                              127,
                              128,
                              129,
                              255,
                              256,
                              257,
                              4096,
                              7168,
                              16896,
                              33792,
                              1.3e5 / 7,
                              4096 * 8 * 32 / 256.0 * 1.3,
                              1e15,
                              7e16,
                              1e17 + 2048,
                              1e300};
  std::mt19937_64 rng(36);
  std::uniform_real_distribution<double> log_size(0, 18);
  for (int i = 0; i < 200; ++i) {
    const double x = std::pow(2.0, log_size(rng));
    dims.push_back(i % 2 == 0 ? std::round(x) : x);
  }
  return dims;
}

TEST(Roofline, ShapeEfficiencyIsTheStdCeilFormulaToTheBit) {
  Efficiency square = test_efficiency();
  square.tile_n = 128;
  const std::vector<double> dims = roofline_test_dimensions();
  for (const Efficiency& e : {test_efficiency(), square}) {
    const RooflineDevice dev = make_roofline_device(test_gpu(), e);
    for (std::size_t i = 0; i < dims.size(); ++i) {
      for (std::size_t j = 0; j < dims.size(); j += 3) {
        const double m = dims[i];
        const double n = dims[j];
        const double k = dims[(i + j) % dims.size()];
        for (double count : {1.0, 8.0, 2.5}) {
          const double got = gemm_shape_efficiency(dev, m, n, k, count);
          const double want = roofline_test_reference_shape(dev, m, n, k, count);
          ASSERT_TRUE(roofline_test_same(got, want)) << got << " != " << want << " at " << m << " x " << n << " x " << k
                                                     << " x " << count << ", tile n " << e.tile_n;
        }
      }
    }
  }
}

TEST(Roofline, AGemmOpIsItsThreeGemmsToTheBit) {
  const RooflineDevice dev = make_roofline_device(test_gpu(), test_efficiency());
  const std::vector<double> dims = roofline_test_dimensions();
  for (std::size_t i = 0; i < dims.size(); i += 2) {
    Op op;
    op.kind = OpKind::gemm;
    op.m = dims[i];
    op.n = dims[(i * 7 + 3) % dims.size()];
    op.k = dims[(i * 13 + 5) % dims.size()];
    op.count = i % 3 == 0 ? 8 : 1;
    op.low_precision = i % 2 == 0;
    op.fwd_bytes = std::abs(op.m * op.k + op.k * op.n) * 2;
    op.bwd_bytes = 2 * op.fwd_bytes;
    const Precision p = op.low_precision ? Precision::fp8 : Precision::bf16;
    const OpTime t = op_time(dev, op, Precision::fp8, Precision::bf16);
    // Eight expert GEMMs run four at a time (Transformer Engine's four compute streams): twice
    // the time of four with half the bytes.
    const double sets = op.count / 4 > 1 ? op.count / 4 : 1;
    const double c = op.count / sets;
    ASSERT_TRUE(roofline_test_same(t.fwd_s, sets * gemm_time_s(dev, p, op.m, op.n, op.k, c, op.fwd_bytes / sets))) << i;
    ASSERT_TRUE(
        roofline_test_same(t.bwd_s, sets * gemm_time_s(dev, p, op.m, op.k, op.n, c, op.bwd_bytes / 2 / sets) +
                                        sets * gemm_time_s(dev, p, op.k, op.n, op.m, c, op.bwd_bytes / 2 / sets)))
        << i;
  }
}

void expect_same_op_time(const RooflineDevice& dev, const Op& a, const Op& b) {
  const OpTime ta = op_time(dev, a, Precision::fp8, Precision::bf16);
  const OpTime tb = op_time(dev, b, Precision::fp8, Precision::bf16);
  EXPECT_EQ(ta.fwd_s, tb.fwd_s);
  EXPECT_EQ(ta.bwd_s, tb.bwd_s);
  EXPECT_EQ(ta.host_fwd_s, tb.host_fwd_s);
  EXPECT_EQ(ta.host_bwd_s, tb.host_bwd_s);
}

TEST(Roofline, OpsEqualInWhatOpTimeReadsTakeTheSameTime) {
  RooflineDevice dev = make_roofline_device(test_gpu(), test_efficiency());
  dev.kernel_launch_s = 4e-6;
  dev.exp_per_s = 1e13;
  dev.attention_kv_half = 512;
  dev.attention_masked_rate_fraction = 0.7;
  for (OpKind kind : {OpKind::gemm, OpKind::attention, OpKind::memory}) {
    Op a;
    a.name = "one";
    a.kind = kind;
    a.group = OpGroup::attention;
    a.m = 4096;
    a.n = 1536;
    a.k = 7168;
    a.count = 2;
    a.low_precision = true;
    a.fwd_flops = 2 * a.m * a.n * a.k * a.count;
    a.bwd_flops = 2 * a.fwd_flops;
    a.exps = 1e9;
    a.fwd_bytes = 5e7;
    a.bwd_bytes = 1e8;
    // What op_time does not read: another name, group, weights, recompute and autograd marks.
    Op b = a;
    b.name = "two";
    b.group = OpGroup::moe;
    b.params = 123;
    b.selective = true;
    b.routed_expert = true;
    b.saves_for_backward = false;
    EXPECT_TRUE(same_op_time_inputs(a, b));
    expect_same_op_time(dev, a, b);
    // Each field it reads makes another op.
    const std::vector<void (*)(Op&)> changes = {
        [](Op& o) { o.kind = o.kind == OpKind::gemm ? OpKind::memory : OpKind::gemm; },
        [](Op& o) { o.m += 1; },
        [](Op& o) { o.n += 1; },
        [](Op& o) { o.k += 1; },
        [](Op& o) { o.count += 1; },
        [](Op& o) { o.low_precision = !o.low_precision; },
        [](Op& o) { o.masked = !o.masked; },
        [](Op& o) { o.fwd_flops *= 2; },
        [](Op& o) { o.bwd_flops *= 2; },
        [](Op& o) { o.exps *= 2; },
        [](Op& o) { o.fwd_bytes *= 2; },
        [](Op& o) { o.bwd_bytes *= 2; },
    };
    for (const auto& change : changes) {
      Op c = a;
      change(c);
      EXPECT_FALSE(same_op_time_inputs(a, c));
    }
  }
}

}  // namespace
}  // namespace gpuplan
