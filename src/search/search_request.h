// `gpuplan search` as a library call: SearchRequest (the CLI's flags as plain fields) →
// answer_search → SearchAnswer, written by report/search_report.h. Bad input throws Error
// naming the flag, the value and the fix; a space where no plan fits is an answer (empty top,
// the closest plans and why they fail).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/train_request.h"
#include "search/search.h"

namespace gpuplan {

struct SearchRequest {
  std::string model;
  std::string gpu;
  std::string system;
  std::string fabric;
  int gpus = 0;          // required, at least 1
  int global_batch = 0;  // required, at least 1
  std::optional<int> seq_len;  // unset = the model's context length
  bool allow_longer_context = false;
  std::string precision = "bf16";
  std::string framework;  // --framework: id or alias; "" = the default (megatron-core)
  int top = 3;
  std::string objective = "time";
  std::optional<int> threads;  // unset = every core; at most max_search_threads()
  double usd_per_gpu_hour = 0;  // 0 = the catalog's cheapest current on-demand offer
  bool no_prune = false;
  double time_limit_s = 0;  // --time-limit; 0 = exhaustive
  std::string calibration;
  double memory_headroom_gib = 0;  // --memory-headroom-gib: kept free per GPU; 0 = none
  int optimizer_state_bits = 32;   // --optimizer-state-bits: fixed for every plan searched
  bool offload_optimizer = false;  // --offload-optimizer: fixed for every plan searched
  std::string elementwise = "fused";  // --elementwise: fused or eager, fixed for every plan searched
  std::string fp8_recipe;            // --fp8-recipe: fixed for every plan searched; "" = the precision's default
  bool fp8_activation_cache = false; // --fp8-activation-cache: fixed for every plan searched
  bool fp8_params = false;           // --fp8-params: fixed for every plan searched
  ProgressSink progress;  // not a field: how far the search is (layouts), for the CLI's stderr
};

struct SearchAnswer {
  TrainSetup setup;  // model, GPU, cluster (and calibration) the plans run on
  SearchSpace space;
  SearchOptions options;
  std::string price_source;  // where options.usd_per_gpu_hour came from ("" = no price)
  Ranker ranker;
  SearchResult result;
  // What the best plan uses that the training validation does not cover (search/coverage.h).
  std::vector<std::string> best_unvalidated;
  // Why the space is empty (divisibility), with the nearest global batches that work; "" when
  // the space has plans (search/empty_space.h).
  std::string empty_space;
  int batch_below = 0;
  int batch_above = 0;
  // When plans exist but none fits in memory: the fewest GPUs, trying 2x, 4x, ... 64x the
  // request (the same batch, system and precision), whose space has a plan that fits; 0 when
  // every plan fit, the space was empty, or none up to 64x fits.
  int min_gpus_that_fit = 0;
  int min_gpus_tried = 0;  // the largest count tried
  // Per plan of result.top, in order: what one step costs at options.usd_per_gpu_hour (0
  // without a price) and where its groups land; the best plan's ops on the GPU's roofline
  // (the HTML report's chart), unset when no plan fits.
  std::vector<double> top_usd_per_step;
  std::vector<std::vector<PlacedGroup>> top_placement;
  std::optional<OpRoofline> roofline;
};

// The most worker threads a search accepts: 4 × the hardware threads (more only adds
// scheduling overhead; the work is CPU-bound).
int max_search_threads();

SearchAnswer answer_search(const Catalog& catalog, const SearchRequest& request);

}  // namespace gpuplan
