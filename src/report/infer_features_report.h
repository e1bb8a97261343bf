// Text and JSON of the serving features `gpuplan infer` answers (infer/infer_features.h):
// one "speculative_decoding" / "prefix_cache" / "disaggregated" / "slo" object each, present
// only when the request turned the feature on.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "infer/infer_features.h"

namespace gpuplan {

void add_infer_features_json(nlohmann::ordered_json& j, const InferFeatureAnswer& a);
std::string infer_features_text(const InferFeatureAnswer& a);

}  // namespace gpuplan
