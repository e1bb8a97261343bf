// Text and JSON for `gpuplan recommend` (training) and `recommend --serve`: the answers of
// econ/recommend_request.h and econ/serve_recommend_request.h, formatted; nothing is computed here.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "econ/recommend_request.h"
#include "econ/serve_recommend_request.h"

namespace gpuplan {

std::string to_text(const RecommendAnswer& r);
nlohmann::ordered_json to_json(const RecommendAnswer& r);
std::string to_text(const ServeRecommendAnswer& r);
nlohmann::ordered_json to_json(const ServeRecommendAnswer& r);

}  // namespace gpuplan
