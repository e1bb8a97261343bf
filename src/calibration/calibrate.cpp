#include "calibration/calibrate.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/strings.h"

namespace gpuplan {
void check_profile_gpu(const Gpu& gpu, const CalibrationProfile& profile) {
  if (to_lower(profile.gpu_id) != to_lower(gpu.id)) {
    throw Error(fmt::format("{}: measured on '{}' ({}), not '{}'; measure this GPU with gpuplan-bench --gpu {}",
                            profile.file, profile.gpu_id, profile.gpu_name, gpu.id, gpu.id));
  }
}

double hbm_min_buffer_bytes(const Gpu& gpu) { return 4 * gpu.l2_bytes.value_or(0); }

Gpu apply_calibration(const Gpu& datasheet, const CalibrationProfile& profile) {
  check_profile_gpu(datasheet, profile);
  Gpu calibrated = datasheet;
  for (Precision p : kAllPrecisions) {
    if (const auto peak = profile.peak_flops_per_s(p)) calibrated.dense_flops_per_s[index_of(p)] = *peak;
  }
  if (const auto bw = profile.hbm_bw_bytes_per_s(hbm_min_buffer_bytes(datasheet))) {
    calibrated.memory_bw_bytes_per_s = *bw;
  }
  calibrated.notes = fmt::format("calibrated from {} ({}, {}, driver {})", profile.file, profile.date, profile.tool,
                                 profile.driver);
  return calibrated;
}

}  // namespace gpuplan
