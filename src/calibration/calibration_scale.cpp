#include "calibration/calibration_scale.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "calibration/calibrate.h"

namespace gpuplan {
namespace {

// Tensor-core precisions share the unit's clocks and power limit, so a unit's measured
// shortfall on one of them is the best estimate for the others it was not measured on.
bool tensor_precision(Precision p) {
  return p == Precision::bf16 || p == Precision::fp16 || p == Precision::fp8 || p == Precision::tf32 ||
         p == Precision::int8 || p == Precision::fp6 || p == Precision::fp4;
}

// The best bandwidth the profile measured with `op` over buffers of at least `min_bytes` (a copy
// counts read + write, STREAM's convention, as the reference does).
std::optional<double> best_bw(const CalibrationProfile& profile, const std::string& op, double min_bytes) {
  std::optional<double> best;
  for (const BandwidthPoint& b : profile.memory_bandwidth) {
    if (b.op == op && b.bytes >= min_bytes) best = std::max(best.value_or(0.0), b.bw_bytes_per_s);
  }
  return best;
}

// HBM bandwidth: measured / reference for the op the catalog's reference was measured with
// ([achievable_memory_bw]), like with like: a read and a copy reach different fractions of the
// peak, so one is never compared with the other. Buffers that fit in L2 measure the L2 and do
// not count (hbm_min_buffer_bytes). Nothing is said when the profile has no read or copy at all
// (a collectives-only profile).
void scale_memory_bw(const Gpu& gpu, const CalibrationProfile& profile, CalibrationScale& s) {
  if (!profile.hbm_bw_bytes_per_s()) return;
  const double min_bytes = hbm_min_buffer_bytes(gpu);
  const std::optional<double> any = profile.hbm_bw_bytes_per_s(min_bytes);
  if (!any) {
    s.skipped.push_back(fmt::format("HBM bandwidth not applied: every read and copy of the profile is over a buffer "
                                    "smaller than {:.0f} MB (4 × {}'s L2), which measures the L2",
                                    min_bytes / 1e6, gpu.id));
    return;
  }
  const double reference = gpu.achievable_memory_bw_bytes_per_s;
  const std::string& op = gpu.achievable_memory_bw_op;
  if (reference <= 0) {
    s.skipped.push_back(fmt::format("HBM bandwidth measured at {:.0f} GB/s ({:.0f}% of the datasheet), not applied: "
                                    "the catalog has no reference achievable bandwidth for {} to compare it with "
                                    "([achievable_memory_bw])",
                                    *any / 1e9, 100 * *any / gpu.memory_bw_bytes_per_s, gpu.id));
    return;
  }
  const std::optional<double> measured = best_bw(profile, op, min_bytes);
  if (!measured) {
    s.skipped.push_back(fmt::format("HBM bandwidth measured at {:.0f} GB/s, not applied: the reference for {} is a {} "
                                    "bandwidth and the profile has no {} point over a buffer of at least {:.0f} MB to "
                                    "compare with it",
                                    *any / 1e9, gpu.id, op, op, min_bytes / 1e6));
    return;
  }
  s.memory_bw = *measured / reference;
  s.applied.push_back(fmt::format("HBM bandwidth ×{:.3f}: measured {} {:.0f} vs reference {:.0f} GB/s", s.memory_bw,
                                  op, *measured / 1e9, reference / 1e9));
}

}  // namespace

CalibrationScale calibration_scale(const Gpu& gpu, const CalibrationProfile& profile) {
  check_profile_gpu(gpu, profile);
  CalibrationScale s;
  s.gemm.fill(1);
  bool have[kPrecisionCount] = {};
  for (Precision p : kAllPrecisions) {
    const std::optional<double> measured = profile.peak_flops_per_s(p);
    if (!measured) continue;
    const double reference = gpu.achievable_flops_per_s[index_of(p)];
    if (reference <= 0) {
      s.skipped.push_back(fmt::format("{} GEMM measured at {:.1f} TFLOP/s, but the catalog has no reference "
                                      "achievable rate for {} {} to compare it with ([achievable_tflops])",
                                      precision_name(p), *measured / 1e12, gpu.id, precision_name(p)));
      continue;
    }
    s.gemm[index_of(p)] = *measured / reference;
    have[index_of(p)] = true;
    for (const GemmPoint& g : profile.gemm) {
      if (g.kernel == "cublaslt" && g.precision == p) s.gemm_shapes[index_of(p)].push_back({g.m, g.n, g.k, g.flops_per_s});
    }
    const std::size_t shapes = s.gemm_shapes[index_of(p)].size();
    s.applied.push_back(fmt::format("{} GEMM ×{:.3f}: measured {:.1f} vs reference {:.1f} TFLOP/s{}", precision_name(p),
                                    s.gemm[index_of(p)], *measured / 1e12, reference / 1e12,
                                    shapes >= 2 ? fmt::format("; shape curve from {} measured shapes", shapes) : ""));
  }
  // Unmeasured tensor precisions inherit the 16-bit factor (bf16, else fp16).
  std::optional<std::size_t> wide;
  if (have[index_of(Precision::bf16)]) wide = index_of(Precision::bf16);
  else if (have[index_of(Precision::fp16)]) wide = index_of(Precision::fp16);
  if (wide) {
    for (Precision p : kAllPrecisions) {
      if (!have[index_of(p)] && tensor_precision(p)) s.gemm[index_of(p)] = s.gemm[*wide];
    }
    s.attention = s.gemm[*wide];
    s.applied.push_back(fmt::format("attention and unmeasured tensor precisions ×{:.3f} (the 16-bit factor)",
                                    s.gemm[*wide]));
  }
  scale_memory_bw(gpu, profile, s);
  return s;
}

std::vector<std::string> calibration_notes(const CalibrationScale& scale) {
  std::vector<std::string> notes;
  for (const std::string& line : scale.applied) notes.push_back("applied: " + line);
  for (const std::string& line : scale.skipped) notes.push_back("skipped: " + line);
  return notes;
}

void apply_calibration_scale(RooflineDevice& device, const CalibrationScale& scale) {
  for (Precision p : kAllPrecisions) device.gemm_flops_per_s[index_of(p)] *= scale.gemm[index_of(p)];
  for (double& r : device.attention_fwd_flops_per_s) r *= scale.attention;
  for (double& r : device.attention_bwd_flops_per_s) r *= scale.attention;
  device.memory_bw_bytes_per_s *= scale.memory_bw;
  auto curves = std::make_shared<GemmShapeCurves>();
  bool any = false;
  for (Precision p : kAllPrecisions) {
    const auto& shapes = scale.gemm_shapes[index_of(p)];
    if (shapes.size() < 2) continue;  // one point is the large-GEMM factor itself, no curve
    curves->by_precision[index_of(p)] = make_gemm_shape_curve(device, shapes);
    any = true;
  }
  device.shape_curves = any ? std::move(curves) : nullptr;
}

}  // namespace gpuplan
