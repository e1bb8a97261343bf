// Objectives a plan search ranks by: step time, dollars, or MFU. Every score is "lower is
// better", so one bounded heap serves all three; a lower bound on step time converts into a
// lower bound on each score (the search prunes with it).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "catalog/cloud_price.h"  // GpuPrice, cheapest_on_demand: the one price rule
#include "plan/evaluate.h"

namespace gpuplan {

enum class Objective { time, cost, mfu };

std::optional<Objective> parse_objective(std::string_view name);
std::string_view objective_name(Objective o);

struct Ranker {
  Objective objective = Objective::time;
  double usd_per_gpu_hour = 0;  // for Objective::cost
  int gpus = 1;
  double peak_flops = 0;        // dense peak of the plan's precision (for Objective::mfu)
  double model_flops_per_step = 0;

  // Lower is better: seconds, dollars per step, or −MFU.
  double score(const Estimate& e) const;
  // A lower bound on score() for any plan whose step time is at least `step_time_s`. Every
  // objective is non-decreasing in step time at a fixed GPU count and precision.
  double score_bound(double step_time_s) const;
};

// Dollars for one step of `gpus` GPUs at `usd_per_gpu_hour`.
double step_cost_usd(double step_time_s, int gpus, double usd_per_gpu_hour);

}  // namespace gpuplan
