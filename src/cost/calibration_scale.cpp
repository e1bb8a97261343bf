#include "cost/calibration_scale.h"

#include <optional>

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
    s.applied.push_back(fmt::format("{} GEMM ×{:.3f}: measured {:.1f} vs reference {:.1f} TFLOP/s", precision_name(p),
                                    s.gemm[index_of(p)], *measured / 1e12, reference / 1e12));
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
  if (const auto bw = profile.hbm_bw_bytes_per_s()) {
    s.skipped.push_back(fmt::format("HBM bandwidth measured at {:.0f} GB/s ({:.0f}% of the datasheet), not applied: "
                                    "the catalog has no reference achievable bandwidth for {} to compare it with",
                                    *bw / 1e9, 100 * *bw / gpu.memory_bw_bytes_per_s, gpu.id));
  }
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
}

}  // namespace gpuplan
