// Text tables and JSON for the `gpuplan validate ...` answers (validate/validate_request.h):
// predicted vs measured per row, and the error statistics per group.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "validate/validate_request.h"

namespace gpuplan {

// One row per group: n, median |err|, mean |err|, bias, within ±10%, within ±25%.
std::string error_groups_text(const std::string& title, const ErrorGroups& groups);
nlohmann::ordered_json error_summary_json(const ErrorSummary& summary);
nlohmann::ordered_json error_groups_json(const ErrorGroups& groups);

std::string to_text(const ValidateCollectivesAnswer& v);
nlohmann::ordered_json to_json(const ValidateCollectivesAnswer& v);
std::string to_text(const ValidateTrainingAnswer& v);
nlohmann::ordered_json to_json(const ValidateTrainingAnswer& v);
std::string to_text(const ValidateInferenceAnswer& v);
nlohmann::ordered_json to_json(const ValidateInferenceAnswer& v);
std::string to_text(const ValidateCalibrationAnswer& v);
nlohmann::ordered_json to_json(const ValidateCalibrationAnswer& v);

}  // namespace gpuplan
