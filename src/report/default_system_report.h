// The line (and JSON member) that says a question ran on the GPU's default system because none
// was named, so a reader of any answer knows which server the numbers assume.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "catalog/gpu.h"
#include "catalog/topology.h"

namespace gpuplan {

// "system: pcie-server-l40s, the default for l40s (...)\n"; empty when `defaulted` is false or
// there is no system.
std::string default_system_text(const System* system, const Gpu& gpu, bool defaulted);

// Adds j["default_system"] = {id, name, gpu, why} under the same condition.
void add_default_system_json(nlohmann::ordered_json& j, const System* system, const Gpu& gpu, bool defaulted);

}  // namespace gpuplan
