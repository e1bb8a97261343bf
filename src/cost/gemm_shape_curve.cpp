#include "cost/gemm_shape_curve.h"

#include <algorithm>
#include <cmath>

#include "cost/roofline.h"

namespace gpuplan {
namespace {

constexpr std::size_t kSide = GemmShapeCurve::kSide;

std::size_t grid_index(std::size_t i, std::size_t j, std::size_t l) { return (i * kSide + j) * kSide + l; }

// Grid coordinate of a size: log2 clamped to the grid, from 0.
double coord(double size) {
  const double x = std::log2(std::max(size, 1.0));
  return std::clamp(x, double{GemmShapeCurve::kMinLog2}, double{GemmShapeCurve::kMaxLog2}) - GemmShapeCurve::kMinLog2;
}

}  // namespace

double gemm_shape_residual(const RooflineDevice& dev, const GemmShapeSample& s, double best_flops_per_s) {
  return s.flops_per_s / (best_flops_per_s * gemm_shape_efficiency(dev, s.m, s.n, s.k, 1));
}

GemmShapeCurve make_gemm_shape_curve(const RooflineDevice& dev, const std::vector<GemmShapeSample>& samples) {
  GemmShapeCurve curve;
  if (samples.empty()) return curve;
  double best = 0;
  for (const GemmShapeSample& s : samples) best = std::max(best, s.flops_per_s);
  struct Point {
    double x, y, z, log_r;
  };
  std::vector<Point> points;
  points.reserve(samples.size());
  for (const GemmShapeSample& s : samples) {
    points.push_back({std::log2(s.m), std::log2(s.n), std::log2(s.k), std::log(gemm_shape_residual(dev, s, best))});
  }
  const double inv_two_var = 1 / (2 * kGemmCurveWidthOctaves * kGemmCurveWidthOctaves);
  curve.log_correction.assign(kSide * kSide * kSide, 0.0f);
  for (std::size_t i = 0; i < kSide; ++i) {
    for (std::size_t j = 0; j < kSide; ++j) {
      for (std::size_t l = 0; l < kSide; ++l) {
        const double x = GemmShapeCurve::kMinLog2 + static_cast<double>(i);
        const double y = GemmShapeCurve::kMinLog2 + static_cast<double>(j);
        const double z = GemmShapeCurve::kMinLog2 + static_cast<double>(l);
        double weights = kGemmCurvePriorWeight;
        double sum = 0;
        for (const Point& p : points) {
          const double d2 = (x - p.x) * (x - p.x) + (y - p.y) * (y - p.y) + (z - p.z) * (z - p.z);
          const double w = std::exp(-d2 * inv_two_var);
          weights += w;
          sum += w * p.log_r;
        }
        curve.log_correction[grid_index(i, j, l)] = static_cast<float>(sum / weights);
      }
    }
  }
  curve.present = true;
  curve.samples = static_cast<int>(samples.size());
  return curve;
}

double gemm_shape_correction(const GemmShapeCurve& curve, double m, double n, double k) {
  if (!curve.present) return 1;
  const double c[3] = {coord(m), coord(n), coord(k)};
  std::size_t lo[3];
  double f[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::min(static_cast<std::size_t>(c[a]), kSide - 2);
    f[a] = c[a] - static_cast<double>(lo[a]);
  }
  double v = 0;
  for (std::size_t di = 0; di < 2; ++di) {
    for (std::size_t dj = 0; dj < 2; ++dj) {
      for (std::size_t dl = 0; dl < 2; ++dl) {
        const double w = (di ? f[0] : 1 - f[0]) * (dj ? f[1] : 1 - f[1]) * (dl ? f[2] : 1 - f[2]);
        v += w * curve.log_correction[grid_index(lo[0] + di, lo[1] + dj, lo[2] + dl)];
      }
    }
  }
  return std::exp(v);
}

}  // namespace gpuplan
