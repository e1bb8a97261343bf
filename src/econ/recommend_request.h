// `gpuplan recommend` as a library call: which GPU, how many, and which cloud offer for a
// training run of T tokens. The best plan per (GPU, count) from the plan search, priced per
// current on-demand offer (econ/offers.h), reduced to the Pareto front of time-to-train vs cost
// (energy alongside). Reasons follow the seed's order: memory fit first, then bandwidth vs
// compute, then price.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/progress.h"
#include "search/search.h"

namespace gpuplan {

// One field per CLI flag (the CLI parses "100B" and "8,16,64" into numbers).
struct RecommendRequest {
  std::string model;                    // --model: zoo id or alias
  double tokens = 0;                    // --tokens: training tokens, > 0
  std::optional<double> deadline_days;  // --deadline: keep runs finishing within it
  std::optional<double> budget_usd;     // --budget: keep runs costing at most it (not with a deadline)
  int gpus_max = 1024;                  // --gpus-max: powers of two up to it
  std::vector<int> gpus_list;           // --gpus-list: GPU counts to try instead
  std::vector<std::string> providers;   // --providers: empty = all
  int global_batch = 1024;              // --global-batch: sequences per step
  int seq_len = 0;                      // --seq-len: 0 = min(model context, 8192)
  std::string precision = "bf16";       // --precision of the linear layers
  double time_limit_s = 2;              // --time-limit: search time limit per (GPU, count)
  int threads = 0;                      // --threads: 0 = every core
  // --cost-tolerance: with no budget, the pick is the fastest front point costing at most
  // (1 + this) × the cheapest one, so a run months slower is never picked to save a rounding error.
  double cost_tolerance = 0.05;
  ProgressSink progress;  // not a field: (GPU, count) searches done, for the CLI's stderr (core/progress.h)
};

struct RecommendPoint {
  const Gpu* gpu = nullptr;
  const System* system = nullptr;
  int gpus = 0;
  Plan plan;
  Estimate estimate;
  const CloudOffer* offer = nullptr;
  double time_s = 0;      // tokens / tokens_per_s
  double cost_usd = 0;    // GPU-hours × $/GPU-hour
  double energy_kwh = 0;  // GPUs × TDP × time; 0 when the TDP is unknown
  bool search_complete = true;
  std::string reason;     // plain-language: why this point
};

struct RecommendAnswer {
  const ModelSpec* model = nullptr;  // the resolved model (owned by the catalog or the caller)
  RecommendRequest request;          // as asked, for the report
  std::vector<RecommendPoint> front;  // Pareto front of (time, cost), fastest first
  RecommendPoint pick;  // fastest within the budget; else the fastest within cost_tolerance of the cheapest
  bool have_pick = false;
  std::string pick_rule;  // the rule that chose `pick`, in words
  // The front's knee: the point farthest below the chord from the fastest to the cheapest point
  // in (log time, log cost), each axis scaled to [0, 1]; -1 when the front has fewer than 3 points.
  int knee_index = -1;
  int over_capacity = 0;     // (offer, count) points dropped: the offer cannot supply that many GPUs
  int searched = 0;          // (GPU, count) searches run
  int cut_short = 0;         // of those, stopped by the time limit
  int points = 0;            // priced (GPU, count, offer) points before filters
  int filtered_out = 0;      // dropped by --deadline / --budget
  std::vector<std::string> notes;  // GPUs skipped and why; counts with no feasible plan
  double elapsed_s = 0;
};

// Throws Error for bad input (naming the flag, the value and the fix; an unknown provider lists
// the known ones). The first form resolves request.model in the catalog's zoo; the second takes
// a model the caller resolved (a config.json), which must outlive the answer.
RecommendAnswer answer_recommend(const Catalog& catalog, const RecommendRequest& request);
RecommendAnswer answer_recommend(const Catalog& catalog, const ModelSpec& model, const RecommendRequest& request);

}  // namespace gpuplan
