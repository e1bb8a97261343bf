// Text and JSON of `gpuplan calibrate training` (validate/training_calibration.h): every run
// before and after, the fitted and refused constants, and where the file went.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "validate/calibrate_request.h"

namespace gpuplan {

std::string to_text(const CalibrateTrainingAnswer& a);
nlohmann::ordered_json to_json(const CalibrateTrainingAnswer& a);

}  // namespace gpuplan
