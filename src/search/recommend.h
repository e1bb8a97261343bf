// Which GPU, how many, and which cloud offer for a training run of T tokens: the best plan per
// (GPU, count) from the plan search, priced per current on-demand offer, reduced to the Pareto
// front of time-to-train vs cost (energy alongside). Reasons follow the seed's order: memory
// fit first, then bandwidth vs compute, then price.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "search/search.h"

namespace gpuplan {

struct RecommendOptions {
  double tokens = 0;            // training tokens
  double deadline_days = 0;     // 0 = none
  double budget_usd = 0;        // 0 = none
  std::vector<int> gpu_counts;  // empty: powers of two up to gpus_max
  int gpus_max = 1024;
  std::vector<std::string> providers;  // empty = all
  int global_batch = 1024;      // sequences per step
  int seq_len = 0;              // 0 = min(model context, 8192)
  Precision precision = Precision::bf16;
  double time_limit_per_point_s = 2;  // search time limit per (GPU, count)
  int threads = 0;
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

struct RecommendResult {
  std::vector<RecommendPoint> front;  // Pareto front of (time, cost), fastest first
  RecommendPoint pick;                // cheapest within the deadline, fastest within the budget, or the cheapest
  bool have_pick = false;
  int searched = 0;          // (GPU, count) searches run
  int cut_short = 0;         // of those, stopped by the time limit
  int points = 0;            // priced (GPU, count, offer) points before filters
  int filtered_out = 0;      // dropped by --deadline / --budget
  std::vector<std::string> notes;  // GPUs skipped and why; counts with no feasible plan
  double elapsed_s = 0;
};

// Throws Error for an unknown provider (naming the known ones) or tokens <= 0.
RecommendResult recommend(const Catalog& catalog, const ModelSpec& model, const RecommendOptions& options);

}  // namespace gpuplan
