#include "report/calibration_report.h"

#include <nlohmann/json.hpp>

namespace gpuplan {

void add_calibration_json(nlohmann::ordered_json& j, const std::string& profile, const std::vector<std::string>& notes) {
  if (!profile.empty()) j["calibration"] = {{"profile", profile}, {"notes", notes}};
}

std::string calibration_text(const std::vector<std::string>& notes) {
  std::string s;
  for (const std::string& n : notes) s += "calibration " + n + "\n";
  return s;
}

}  // namespace gpuplan
