// Text and JSON of the serving features `gpuplan infer` answers (infer/infer_features.h):
// one "speculative_decoding" / "prefix_cache" / "disaggregated" / "slo" object each, present
// only when the request turned the feature on.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "infer/infer_features.h"
#include "infer/infer_request.h"

namespace gpuplan {

void add_infer_features_json(nlohmann::ordered_json& j, const InferFeatureAnswer& a);
std::string infer_features_text(const InferFeatureAnswer& a);

// infer-search --disagg-prefill-gpus (infer/disagg_search.h): the best disaggregated pair and
// the best per prefill GPU; `decode_gpu` is the plan's --gpu.
nlohmann::ordered_json disagg_search_json(const std::string& decode_gpu, const DisaggSearchAnswer& a);
std::string disagg_search_text(const std::string& decode_gpu, const DisaggSearchAnswer& a);

}  // namespace gpuplan
