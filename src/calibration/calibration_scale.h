// What a calibration profile changes in the cost models. The fitted efficiencies
// (data/fitted/efficiency/, data/engines/) are fractions of the datasheet peak, fitted on
// published runs of typical units, so a measured ceiling must not simply replace the datasheet
// one (that would count the typical unit's shortfall twice). Instead the profile is compared
// with the catalog's reference measurement of the same GPU (`[achievable_tflops]`, maximum
// achievable matmul): a unit that measures 5% below the reference runs every GEMM 5% slower
// than the fitted model says, one that measures at the reference changes nothing. HBM bandwidth
// works the same way against `[achievable_memory_bw]` (a STREAM-like read or copy on a
// reference unit, compared with the profile's best point of that same op). Figures with no
// reference in the catalog are reported as skipped, never guessed.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "calibration/profile.h"
#include "catalog/gpu.h"
#include "cost/roofline.h"

namespace gpuplan {

struct CalibrationScale {
  PerPrecision gemm{};  // multiplier of the GEMM rate per precision (1 = unchanged)
  double attention = 1;  // multiplier of the attention kernels' rate (the 16-bit GEMM factor)
  double memory_bw = 1;  // multiplier of the achievable HBM bandwidth
  // The measured cuBLASLt shapes of each precision that has a GEMM factor: the shape curve
  // (gemm_shape_curve.h) apply_calibration_scale builds against the device's shape model.
  std::array<std::vector<GemmShapeSample>, kPrecisionCount> gemm_shapes{};
  std::vector<std::string> applied;  // one line per factor: what was measured against what
  std::vector<std::string> skipped;  // measured figures with no reference, and why
};

// Throws Error when the profile was measured on another GPU (naming both).
CalibrationScale calibration_scale(const Gpu& gpu, const CalibrationProfile& profile);

// "applied: ..." then "skipped: ..." lines, as the commands print them.
std::vector<std::string> calibration_notes(const CalibrationScale& scale);

// The device with the factors applied, and the measured shape curves attached.
void apply_calibration_scale(RooflineDevice& device, const CalibrationScale& scale);

}  // namespace gpuplan
