// "Why not": for a training plan that cannot run, the nearest plans on the same GPUs that do,
// each one change away: a stronger recomputation, a ZeRO stage, more tensor or pipeline
// parallelism taken from data parallelism, or a smaller micro-batch. (A global batch that does
// not divide is bad input to `train`, which names the nearest that do; `search` explains an
// empty space in search/empty_space.h.)
#pragma once

#include <string>
#include <vector>

#include "plan/evaluate.h"

namespace gpuplan {

struct NearbyPlan {
  Plan plan;
  std::string change;  // "recompute full", "tp 2 (dp 4)", "zero 1", "micro-batch 2"
  double step_time_s = 0;
  double memory_bytes = 0;  // per GPU, the most loaded pipeline rank
};

// Up to `max_plans` feasible single-change neighbours of `plan`, fastest first; empty when
// `plan` is feasible or no single change makes it run (the smallest GPU count is then the
// search's answer: gpuplan search / recommend).
std::vector<NearbyPlan> nearest_feasible_plans(const TrainContext& ctx, const Plan& plan, int max_plans = 5);

}  // namespace gpuplan
