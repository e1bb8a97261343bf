// What --calibration changed (calibration/calibration_scale.h), written the same way by every
// answer that takes a profile: a "calibration" object in JSON (none without a profile) and a
// "calibration ..." line per note in text.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gpuplan {

void add_calibration_json(nlohmann::ordered_json& j, const std::string& profile, const std::vector<std::string>& notes);
std::string calibration_text(const std::vector<std::string>& notes);

}  // namespace gpuplan
