// `gpuplan recommend` as the interfaces take it: one question, for a training run or (serve)
// a serving target, with the fields typed as a person gives them ("100B" tokens, "8,16" GPU
// counts), and its field table (core/field_spec.h), from which the CLI adds its flags, Python
// reads its keywords and the web API builds its allowlist. The rules between the two halves
// (a training field is not for --serve, and the other way round) live here, once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/field_spec.h"
#include "econ/recommend_request.h"
#include "econ/serve_recommend_request.h"

namespace gpuplan {

struct RecommendQuestion {
  RecommendRequest train;       // the training fields; tokens and gpus_max come from below
  ServeRecommendRequest serve;  // the serving fields; model, providers and gpus_max come from train and below
  std::string tokens;           // "100B", "15T", "1e12": training tokens; required unless serving
  std::optional<int> gpus_max;  // unset: 1024 for training (powers of two up to it), 8 for serving (one replica)
  std::string weights;          // serving: the weight precision to pin ("" = the search tries bf16, fp8, int4)
  bool serving = false;         // --serve
};

const std::vector<FieldSpec<RecommendQuestion>>& recommend_fields();

// The question's two requests. Each throws FieldError naming the field (as a CLI flag; each
// interface words it its own way) for a field of the other half that was given, a missing or
// unreadable token count, a GPU count out of range or an unknown weight precision.
RecommendRequest recommend_training_request(const RecommendQuestion& question);
ServeRecommendRequest recommend_serving_request(const RecommendQuestion& question);

}  // namespace gpuplan
