// The exhaustive plan search: every plan of the space (enumerate.h) through the training
// evaluator on worker threads, a bounded top-K heap per thread merged at the end, and two
// pruning rules that provably never drop a plan of the top K (docs/model/search.md).
#pragma once

#include <vector>

#include "core/progress.h"
#include "plan/evaluate.h"
#include "search/enumerate.h"
#include "search/rank.h"

namespace gpuplan {

struct SearchOptions {
  int top_k = 5;
  int threads = 0;         // 0 = std::thread::hardware_concurrency()
  bool prune = true;       // false: brute force (every plan evaluated)
  double time_limit_s = 0; // 0 = exhaustive; otherwise stop after this long (result.complete = false)
  int closest = 3;         // plans kept to explain an empty result
  Objective objective = Objective::time;
  double usd_per_gpu_hour = 0;  // for Objective::cost
  const ProgressSink* progress = nullptr;  // layouts done of all (core/progress.h); null = none
};

struct Candidate {
  Plan plan;
  Estimate estimate;
  double score = 0;  // the objective's, lower is better
};

struct SearchResult {
  long long space = 0;      // plans in the space
  long long evaluated = 0;  // plans run through evaluate()
  long long feasible = 0;   // of those, the ones that fit
  long long pruned = 0;     // plans skipped by a pruning rule (evaluated + pruned = space when complete)
  double elapsed_s = 0;
  int threads = 1;
  bool complete = true;     // false when the time limit stopped the search
  std::vector<Candidate> top;      // best first, at most top_k
  // When no plan is feasible: the valid plans needing the least memory, then (if none is
  // valid) the first invalid ones; each estimate says why it fails.
  std::vector<Candidate> closest;
};

// The Ranker the search builds for `ctx` and `space` (exposed for the tests and reports).
Ranker make_ranker(const TrainContext& ctx, const SearchSpace& space, const SearchOptions& options);

// Never throws for an infeasible space: an empty `top` and a filled `closest` instead.
SearchResult search_plans(const TrainContext& ctx, const SearchSpace& space, const SearchOptions& options);

// Two plans the model cannot tell apart: the same step time and the same memory per GPU to
// the last bit (e.g. a degree that changes nothing). The search keeps only the better-ranked.
bool equivalent_prediction(const Candidate& a, const Candidate& b);

// Orders candidates: by score, then by the plan's fields (deterministic across thread counts).
bool candidate_less(const Candidate& a, const Candidate& b);

}  // namespace gpuplan
