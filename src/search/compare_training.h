// `gpuplan compare A B --model M --gpus N ...` (and the web UI's compare page) as one library
// call: the GPUs' datasheets side by side (catalog/lookup_request.h), and, where a training
// question is given, each GPU's fastest plan for it (the search `gpuplan search` runs, on each
// GPU's own default system) with its step time, throughput and cost per million tokens at that
// GPU's cheapest current on-demand price. Ratios are to the first GPU.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/lookup_request.h"
#include "core/field_spec.h"
#include "search/search_request.h"

namespace gpuplan {

struct CompareTrainingRequest {
  std::vector<std::string> names;  // two or more GPU ids or aliases; ratios to the first
  SearchRequest search;            // the question; its gpu is set per GPU
};

struct CompareTrainingSide {
  std::shared_ptr<const SearchAnswer> search;  // the GPU's search; result.top.front() is its best plan
  bool found = false;                          // some plan fits
  double step_time_s = 0;
  double tokens_per_s = 0;
  double usd_per_gpu_hour = 0;          // the search's price (0: no current on-demand offer)
  double usd_per_million_tokens = 0;    // usd_per_step / tokens_per_step × 1e6; 0 without a price
  double speed_vs_first = 0;            // first's step time / this step time (2 = twice as fast); 0 if either has none
  double cost_vs_first = 0;             // this cost per token / the first's; 0 if either has none
};

struct CompareTrainingAnswer {
  CompareAnswer datasheets;
  bool training = false;
  SearchRequest question;                  // the training question as asked (gpu unset)
  std::vector<CompareTrainingSide> sides;  // one per GPU, in the request's order (training only)
};

// The request's fields as a table (core/field_spec.h), from which the CLI adds its flags (beside
// the GPUs as positionals), Python reads its keywords and the web API builds its allowlist.
const std::vector<FieldSpec<CompareTrainingRequest>>& compare_fields();

// A training question is asked when search.model is set. Throws Error naming the flag for a bad
// GPU or question (answer_compare's, answer_search's), and FieldError for a training field
// (gpus, global_batch, seq_len) given without a model.
CompareTrainingAnswer answer_compare_training(const Catalog& catalog, const CompareTrainingRequest& request);

}  // namespace gpuplan
