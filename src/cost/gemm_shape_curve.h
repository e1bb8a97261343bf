// The measured GEMM-shape curve of a calibration profile, as a correction to the roofline's
// shape model. The roofline (roofline.h) says a GEMM of M×N×K runs at the large-GEMM rate ×
// gemm_shape_efficiency (wave quantisation × K/(K + k_half)). A profile measures real shapes;
// at each measured point the residual is
//     r = measured rate / (best measured rate of that precision × gemm_shape_efficiency),
// 1 where the shape model is right, < 1 where the shape runs slower than it says (an awkward
// tile fit, a heuristic's poor pick), > 1 where faster. Between points the correction is a
// Gaussian kernel smoother of log r in (log2 M, log2 N, log2 K) with a width of one octave
// and a prior weight that pulls it back to 1 far from any measurement, so a shape nobody
// measured keeps the plain model. It is tabulated once on a one-octave grid and read by
// trilinear interpolation, so the per-GEMM cost in the evaluator's hot path is a few loads.
// The large-GEMM factor itself (best measured / reference) is calibration_scale.h's.
#pragma once

#include <array>
#include <vector>

#include "core/precision.h"

namespace gpuplan {

struct RooflineDevice;

// One measured GEMM shape and its rate.
struct GemmShapeSample {
  double m = 0, n = 0, k = 0;
  double flops_per_s = 0;
};

struct GemmShapeCurve {
  static constexpr int kMinLog2 = 4;   // 16
  static constexpr int kMaxLog2 = 18;  // 262,144: beyond either end the edge value holds
  static constexpr int kSide = kMaxLog2 - kMinLog2 + 1;
  bool present = false;
  int samples = 0;
  std::vector<float> log_correction;  // kSide³, [m][n][k]
};

// The smoother's parameters, fixed here (not fitted): one octave of width, and a prior worth a
// measurement two octaves away (exp(-2) ≈ 0.135), so a lone point one octave off moves the
// curve most of the way to itself, and nothing moves it far from the data.
inline constexpr double kGemmCurveWidthOctaves = 1.0;
inline constexpr double kGemmCurvePriorWeight = 0.135;

// The curve of one precision's samples, their residuals against `dev`'s shape model (tiles,
// SMs, k_half) and the best sample's rate. An empty input gives a curve that is not present.
GemmShapeCurve make_gemm_shape_curve(const RooflineDevice& dev, const std::vector<GemmShapeSample>& samples);

// Multiplier of the roofline's rate for an M×N×K GEMM (1 when the curve is not present).
double gemm_shape_correction(const GemmShapeCurve& curve, double m, double n, double k);

// Residual r of one sample against the shape model (see above), for reports and tests.
double gemm_shape_residual(const RooflineDevice& dev, const GemmShapeSample& sample, double best_flops_per_s);

// One curve per precision (not present = no correction).
struct GemmShapeCurves {
  std::array<GemmShapeCurve, kPrecisionCount> by_precision{};
};

}  // namespace gpuplan
