// Text and JSON for `gpuplan rooflines` (cost/rooflines_request.h): one row per level of the
// hierarchy with the per-GPU batch bounds and the largest TP degree.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "cost/rooflines_request.h"

namespace gpuplan {

std::string to_text(const RooflinesAnswer& answer);
nlohmann::ordered_json to_json(const RooflinesAnswer& answer);

}  // namespace gpuplan
