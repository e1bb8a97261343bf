#include "econ/recommend_question.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/field_error.h"
#include "core/strings.h"
#include "core/units.h"
#include "infer/infer_request.h"

namespace gpuplan {

// In the order `gpuplan recommend --help` lists them.
const std::vector<FieldSpec<RecommendQuestion>>& recommend_fields() {
  using R = RecommendQuestion;
  static const std::vector<FieldSpec<R>> fields{
      {"model", GP_FIELD(R, train.model), "", "", "Model id or alias", kRequired},
      {"tokens", GP_FIELD(R, tokens), "tokens", "", "Training tokens (100B, 15T, 1e12); required unless --serve"},
      {"deadline_days", GP_FIELD(R, train.deadline_days), "days", "", "Keep only runs finishing within this many days",
       0, "deadline", "deadline-days"},
      {"budget_usd", GP_FIELD(R, train.budget_usd), "USD", "", "Keep only runs costing at most this many dollars", 0,
       "budget", "budget-usd"},
      {"cost_tolerance", GP_FIELD(R, train.cost_tolerance), "", "",
       "Without --budget, pick the fastest run within this fraction of the cheapest (0.05 = 5%)", kShowDefault},
      {"gpus_max", GP_FIELD(R, gpus_max), "GPUs", "",
       "Largest GPU count (powers of two up to it; default 1024); with --serve, GPUs of one replica (default 8)"},
      {"gpus_list", GP_FIELD(R, train.gpus_list), "GPUs", "", "GPU counts to try instead, e.g. 8,16,64"},
      {"providers", GP_FIELD(R, train.providers), "", "",
       "Cloud providers to consider, e.g. aws,lambda (default: all)"},
      {"global_batch", GP_FIELD(R, train.global_batch), "sequences", "", "Sequences per step", kShowDefault},
      {"seq_len", GP_FIELD(R, train.seq_len), "tokens", "",
       "Tokens per sequence (default: the model's context, at most 8192)"},
      {"precision", GP_FIELD(R, train.precision), "", "bf16, fp16, fp8, tf32, fp32", "Precision of the linear layers",
       kShowDefault},
      {"time_limit_s", GP_FIELD(R, train.time_limit_s), "s", "", "Search time limit per (GPU, count), seconds",
       kShowDefault, "time-limit"},
      {"threads", GP_FIELD(R, train.threads), "threads", "", "Worker threads (default: every core)", kLocalOnly},
      {"serve", GP_FIELD(R, serving), "", "", "Recommend for serving (infer-search per GPU) instead of training", 0},
      {"input_len", GP_FIELD(R, serve.input_len), "tokens", "", "--serve: prompt tokens per request", kShowDefault},
      {"output_len", GP_FIELD(R, serve.output_len), "tokens", "", "--serve: generated tokens per request",
       kShowDefault},
      {"rate_rps", GP_FIELD(R, serve.rate_rps), "requests/s", "",
       "--serve: requests/s to serve (the fewest GPUs that do, within the targets)", 0, "rate"},
      {"ttft_ms", GP_FIELD(R, serve.ttft_ms), "ms", "", "--serve: time-to-first-token target, ms"},
      {"tpot_ms", GP_FIELD(R, serve.tpot_ms), "ms", "", "--serve: time-per-output-token target, ms"},
      {"engine", GP_FIELD(R, serve.engine), "", "tensorrt-llm, vllm, sglang", "--serve: tensorrt-llm, vllm or sglang",
       kShowDefault},
      {"weights", GP_FIELD(R, weights), "", "bf16, fp8, int4",
       "--serve: pin the weight precision (default: the search tries bf16, fp8, int4)"},
  };
  return fields;
}

namespace {

// The fields of one half only: given (not at their default) with the other half, an error.
constexpr std::string_view kTrainingOnly[] = {"tokens",       "deadline_days", "budget_usd", "gpus_list",
                                              "global_batch", "seq_len",       "precision",  "time_limit_s"};
constexpr std::string_view kServingOnly[] = {"input_len", "output_len", "rate_rps", "ttft_ms",
                                             "tpot_ms",   "engine",     "weights"};

template <std::size_t N>
void refuse_given(const RecommendQuestion& q, const std::string_view (&names)[N], const char* why) {
  for (const FieldSpec<RecommendQuestion>& f : recommend_fields()) {
    if (std::find(std::begin(names), std::end(names), f.name) == std::end(names)) continue;
    if (!field_is_default(f, q)) throw FieldError(std::string(f.name), fmt::format("--{} {}", field_flag(f), why));
  }
}

std::vector<std::string> lower_names(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    if (!n.empty()) out.push_back(to_lower(n));  // "aws,,lambda": the empty item is no provider
  }
  return out;
}

}  // namespace

RecommendRequest recommend_training_request(const RecommendQuestion& q) {
  check_field_numbers(q, recommend_fields(), FieldNumberRule::kFiniteNumbers);  // NaN, inf (core/field_spec.h)
  refuse_given(q, kServingOnly, "needs --serve");
  RecommendRequest r = q.train;
  if (q.tokens.empty()) {
    throw FieldError("tokens", "--tokens is required (training tokens, e.g. 100B), or add --serve for serving");
  }
  try {
    r.tokens = parse_count(q.tokens, "--tokens");
  } catch (const Error& e) {
    throw FieldError("tokens", e.what());
  }
  r.gpus_max = q.gpus_max.value_or(r.gpus_max);
  for (int n : r.gpus_list) {
    // An upper bound as --gpus-max has none: a typo (8000000) would search for hours.
    if (n > 1000000) throw FieldError("gpus_list", fmt::format("--gpus-list {}: at most 1000000 GPUs", n));
  }
  r.providers = lower_names(q.train.providers);
  return r;
}

ServeRecommendRequest recommend_serving_request(const RecommendQuestion& q) {
  check_field_numbers(q, recommend_fields(), FieldNumberRule::kFiniteNumbers);  // NaN, inf (core/field_spec.h)
  refuse_given(q, kTrainingOnly, "is for training; drop it with --serve");
  ServeRecommendRequest r = q.serve;
  r.model = q.train.model;
  r.gpus_max = q.gpus_max.value_or(r.gpus_max);
  r.providers = lower_names(q.train.providers);
  if (!q.weights.empty()) {
    try {
      r.weights = {parse_weight_precision(q.weights)};
    } catch (const Error& e) {
      throw FieldError("weights", e.what());
    }
  }
  return r;
}

}  // namespace gpuplan
