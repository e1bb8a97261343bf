// Text and JSON for `gpuplan cost`, `gpuplan tco` and `gpuplan energy`: the answers of
// econ/cost_request.h, econ/tco_request.h and econ/energy_request.h, formatted; nothing is
// computed here.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "econ/cost_request.h"
#include "econ/energy_request.h"
#include "econ/tco_request.h"

namespace gpuplan {

std::string to_text(const CostAnswer& r);
nlohmann::ordered_json to_json(const CostAnswer& r);
std::string to_text(const TcoAnswer& r);
nlohmann::ordered_json to_json(const TcoAnswer& r);
std::string to_text(const EnergyAnswer& r);
nlohmann::ordered_json to_json(const EnergyAnswer& r);

}  // namespace gpuplan
