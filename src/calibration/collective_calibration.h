// A collective's time from measured points of the same op on the same number of GPUs (a
// calibration profile's nccl-tests-style curve) instead of the fitted model: log-log
// interpolation between the two measured sizes around the request; beyond the measured range,
// the model's shape anchored on the nearest measured point. The model is not consulted inside
// the range, so a calibrated collective on the machine that was measured is the measurement.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "calibration/profile.h"
#include "cost/collective.h"

namespace gpuplan {

struct CalibratedCollective {
  double time_s = 0;
  double busbw_bytes_per_s = 0;
  std::string how;  // "interpolated between measured 16 MiB and 64 MiB", "model scaled from measured 1 GiB"
};

// nullopt (with `why` set) when the profile has no point for this op and GPU count.
// `model_time_s(bytes)` is the uncalibrated estimate, used only outside the measured range.
std::optional<CalibratedCollective> calibrated_collective(const CalibrationProfile& profile, CollectiveOp op,
                                                          int gpus, double bytes,
                                                          const std::function<double(double)>& model_time_s,
                                                          std::string& why);

}  // namespace gpuplan
