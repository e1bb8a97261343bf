// `gpuplan gpu NAME [--calibration PROFILE]` as a library call: one catalog GPU, and with a
// gpuplan-bench profile the same GPU with its measured figures beside the datasheet.
#pragma once

#include <optional>
#include <string>

#include "calibration/profile.h"
#include "catalog/catalog.h"

namespace gpuplan {

struct GpuRequest {
  std::string name;         // GPU id or alias
  std::string calibration;  // "" = datasheet only
};

struct GpuAnswer {
  const Gpu* gpu = nullptr;               // the catalog entry (datasheet)
  std::optional<Gpu> calibrated;          // with --calibration: apply_calibration(*gpu, *profile)
  std::optional<CalibrationProfile> profile;
};

// Throws Error for an unknown GPU, an unreadable profile, or one measured on another GPU.
GpuAnswer answer_gpu(const Catalog& catalog, const GpuRequest& request);

}  // namespace gpuplan
