#include "emit/emit_common.h"

namespace gpuplan {

std::string hf_model_name(const ModelSpec& model) {
  for (const std::string& a : model.aliases)
    if (a.find('/') != std::string::npos) return a;
  return model.id;
}

std::string command_line(const std::string& program, const LaunchConfig& config) {
  std::string out = program;
  for (const auto& [flag, value] : config.flags) {
    out += " \\\n    " + flag;
    if (!value.empty()) out += " " + value;
  }
  return out + "\n";
}

}  // namespace gpuplan
