// Text and JSON for `gpuplan search` (search/search_request.h): the space searched, the best
// plans with their breakdowns, or the closest plans and why they fail.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "search/search_request.h"

namespace gpuplan {

std::string to_text(const SearchAnswer& answer);
nlohmann::ordered_json to_json(const SearchAnswer& answer);

}  // namespace gpuplan
