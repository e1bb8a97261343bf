// `gpuplan gpu NAME [--calibration PROFILE]` as a library call: one catalog GPU, and with a
// gpuplan-bench profile the same GPU with its measured figures beside the datasheet.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibration/profile.h"
#include "catalog/catalog.h"
#include "catalog/gpu_derived.h"

namespace gpuplan {

struct GpuRequest {
  std::string name;         // GPU id or alias
  std::string calibration;  // "" = datasheet only
};

// One figure the profile measured, beside the datasheet's: a dense peak (`precision` set) or
// the HBM bandwidth (`precision` unset).
struct CalibrationOverride {
  std::optional<Precision> precision;
  double datasheet = 0;  // flops_per_s or bytes_per_s
  double measured = 0;
};

struct GpuAnswer {
  const Gpu* gpu = nullptr;               // the catalog entry (datasheet)
  GpuDerived derived;                     // derive_gpu(*gpu)
  std::optional<Gpu> calibrated;          // with --calibration: apply_calibration(*gpu, *profile)
  std::optional<GpuDerived> calibrated_derived;  // derive_gpu(*calibrated)
  std::optional<CalibrationProfile> profile;
  std::vector<CalibrationOverride> overrides;  // what the profile changed, dense peaks first
};

// Throws Error for an unknown GPU, an unreadable profile, or one measured on another GPU.
GpuAnswer answer_gpu(const Catalog& catalog, const GpuRequest& request);

}  // namespace gpuplan
