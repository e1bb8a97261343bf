// Text and JSON for `gpuplan infer` and `gpuplan infer-search`.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "infer/infer_request.h"

namespace gpuplan {

// The plan's name as TensorRT-LLM's and SGLang's DeepSeek guides write it: DEP8 (attention DP 8 ×
// EP 8 on 8 GPUs), TEP8 (attention TP 8 × EP 8), "attention DP2×TP4, experts EP8" otherwise
// (experts "TP8" without EP, "EP2×TP4" for EP 2 with each expert split 4 ways); "" for a plan
// without attention DP or EP over the whole TP group.
std::string infer_plan_label(const InferPlan& plan);
std::string infer_plan_summary(const InferPlan& plan);
nlohmann::ordered_json infer_plan_json(const InferPlan& plan);
std::string infer_text(const InferContext& ctx, const InferPlan& plan, const InferEstimate& est);
nlohmann::ordered_json infer_json(const InferContext& ctx, const InferPlan& plan, const InferEstimate& est);
std::string infer_search_text(const InferContext& ctx, const InferSearchSpec& spec, const InferSearchResult& r);
nlohmann::ordered_json infer_search_json(const InferContext& ctx, const InferSearchSpec& spec,
                                         const InferSearchResult& r);

// The whole answer of `gpuplan infer` / `gpuplan infer-search`: the pieces above plus what
// --calibration changed (a "calibration" object in JSON, a "calibration ..." line per note).
nlohmann::ordered_json to_json(const InferAnswer& answer);
std::string to_text(const InferAnswer& answer);
nlohmann::ordered_json to_json(const InferSearchAnswer& answer);
std::string to_text(const InferSearchAnswer& answer);

}  // namespace gpuplan
