// The measured GEMM-shape curve (cost/gemm_shape_curve.h): residuals against the shape model,
// the kernel smoother's values at grid nodes and between them, by hand, and its use in the
// roofline.
#include "cost/gemm_shape_curve.h"

#include <gtest/gtest.h>

#include <cmath>

#include "cost/roofline.h"

namespace gpuplan {
namespace {

// One SM and 16×16 tiles with no K penalty: the shape model says 1 for every multiple of 16,
// so a sample's residual is just its rate over the best rate.
RooflineDevice flat_device() {
  RooflineDevice dev;
  dev.sm_count = 1;
  dev.tile_m = 16;
  dev.tile_n = 16;
  dev.k_half = 0;
  dev.memory_bw_bytes_per_s = 1e30;
  dev.gemm_flops_per_s.fill(100e12);
  return dev;
}

// Two samples four octaves apart on every axis: (1024³ at the best rate, 64³ at half of it).
GemmShapeCurve two_point_curve() {
  return make_gemm_shape_curve(flat_device(), {{1024, 1024, 1024, 100e12}, {64, 64, 64, 50e12}});
}

TEST(GemmShapeCurve, NoSamplesMeansNoCorrection) {
  const GemmShapeCurve curve = make_gemm_shape_curve(flat_device(), {});
  EXPECT_FALSE(curve.present);
  EXPECT_DOUBLE_EQ(gemm_shape_correction(curve, 4096, 4096, 4096), 1.0);
}

TEST(GemmShapeCurve, ResidualIsRateOverBestTimesShapeModel) {
  RooflineDevice dev = flat_device();
  EXPECT_DOUBLE_EQ(gemm_shape_residual(dev, {64, 64, 64, 50e12}, 100e12), 0.5);
  // With k_half = 64, K = 64 runs at half the large-K rate in the model: a measured half rate
  // is exactly what the model says (residual 1).
  dev.k_half = 64;
  EXPECT_DOUBLE_EQ(gemm_shape_residual(dev, {64, 64, 64, 50e12}, 100e12), 1.0);
}

TEST(GemmShapeCurve, AtANodeTheSmootherShrinksTheResidualByThePrior) {
  const GemmShapeCurve curve = two_point_curve();
  EXPECT_TRUE(curve.present);
  EXPECT_EQ(curve.samples, 2);
  // At 64³ (node 6,6,6): the sample weighs 1, the other e^-24 (nothing), the prior 0.135:
  // log c = log 0.5 / 1.135.
  EXPECT_NEAR(gemm_shape_correction(curve, 64, 64, 64), std::pow(0.5, 1 / 1.135), 1e-6);
  // At the best sample, log r = 0: no correction.
  EXPECT_NEAR(gemm_shape_correction(curve, 1024, 1024, 1024), 1.0, 1e-6);
}

TEST(GemmShapeCurve, BetweenNodesItInterpolatesTheLogLinearly) {
  const GemmShapeCurve curve = two_point_curve();
  // Node (7,6,6) is one octave from the 64³ sample: weight e^-1/2.
  const double w = std::exp(-0.5);
  const double node7 = w * std::log(0.5) / (w + 0.135);
  const double node6 = std::log(0.5) / 1.135;
  // M = 64·√2 sits halfway between nodes 6 and 7 in log2.
  EXPECT_NEAR(gemm_shape_correction(curve, 64 * std::sqrt(2.0), 64, 64), std::exp(0.5 * (node6 + node7)), 1e-6);
}

TEST(GemmShapeCurve, FarFromEveryMeasurementItReturnsToOne) {
  const GemmShapeCurve curve = two_point_curve();
  // 2^17 × 16 × 2^17: ≥ 7 octaves from both samples.
  EXPECT_NEAR(gemm_shape_correction(curve, 131072, 16, 131072), 1.0, 1e-6);
  // Beyond the grid the edge value holds: no NaN, no extrapolation.
  const double edge = gemm_shape_correction(curve, 262144, 262144, 262144);
  EXPECT_DOUBLE_EQ(gemm_shape_correction(curve, 1e9, 1e9, 1e9), edge);
  EXPECT_DOUBLE_EQ(gemm_shape_correction(curve, 1, 1, 1), gemm_shape_correction(curve, 16, 16, 16));
}

TEST(GemmShapeCurve, RooflineDividesTheRateByTheCorrection) {
  RooflineDevice dev = flat_device();
  const double plain = gemm_time_s(dev, Precision::bf16, 64, 64, 64, 1, 0);
  auto curves = std::make_shared<GemmShapeCurves>();
  curves->by_precision[index_of(Precision::bf16)] = two_point_curve();
  dev.shape_curves = curves;
  // (The table holds floats: 1e-6 relative.)
  EXPECT_NEAR(gemm_time_s(dev, Precision::bf16, 64, 64, 64, 1, 0) / plain, 1 / std::pow(0.5, 1 / 1.135), 1e-6);
  // Other precisions have no curve: unchanged.
  EXPECT_DOUBLE_EQ(gemm_time_s(dev, Precision::fp8, 64, 64, 64, 1, 0),
                   gemm_time_s(flat_device(), Precision::fp8, 64, 64, 64, 1, 0));
}

TEST(GemmShapeCurve, WhereTheShapeModelIsRightTheCurvedPredictionIsTheMeasurement) {
  RooflineDevice dev = flat_device();
  dev.k_half = 128;         // the shape model now varies with K
  const double c = 120e12;  // the unit's true large-GEMM rate: every shape runs at c × eff
  std::vector<GemmShapeSample> samples;
  for (double s : {256.0, 512.0, 1024.0, 2048.0, 4096.0})
    samples.push_back({s, s, s, c * gemm_shape_efficiency(dev, s, s, s, 1)});
  const double best = samples.back().flops_per_s;
  const GemmShapeCurve curve = make_gemm_shape_curve(dev, samples);
  // Every residual is 1 / eff(4096³) (just above 1): the curve lifts the best measured rate
  // back to c, so prediction = best × eff × correction ≈ the measurement (the prior's shrink
  // leaves a fraction of a percent).
  for (const GemmShapeSample& s : samples) {
    const double predicted =
        best * gemm_shape_efficiency(dev, s.m, s.n, s.k, 1) * gemm_shape_correction(curve, s.m, s.n, s.k);
    EXPECT_NEAR(predicted / s.flops_per_s, 1.0, 0.005) << s.m;
  }
}

}  // namespace
}  // namespace gpuplan
