// LaunchConfig as text (the files, ready to save) and JSON (flags as an object, files, notes).
#include <nlohmann/json.hpp>

#include "emit/launch_config.h"

namespace gpuplan {

std::string to_text(const LaunchConfig& c) {
  std::string out = "# " + c.framework + " launch config for this plan (" + c.version + ")\n";
  out += "# flag names: " + c.flag_source + "\n";
  for (const std::string& n : c.notes) out += "# note: " + n + "\n";
  for (const EmittedFile& f : c.files) out += "\n# ---- " + f.name + " ----\n" + f.text;
  return out;
}

nlohmann::ordered_json to_json(const LaunchConfig& c) {
  nlohmann::ordered_json j;
  j["framework"] = c.framework;
  j["version"] = c.version;
  j["flag_source"] = c.flag_source;
  j["flags"] = nlohmann::ordered_json::object();
  for (const auto& [flag, value] : c.flags) j["flags"][flag] = value;
  j["files"] = nlohmann::ordered_json::array();
  for (const EmittedFile& f : c.files) j["files"].push_back({{"name", f.name}, {"text", f.text}});
  j["notes"] = c.notes;
  return j;
}

}  // namespace gpuplan
