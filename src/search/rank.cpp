#include "search/rank.h"

namespace gpuplan {

std::optional<Objective> parse_objective(std::string_view name) {
  if (name == "time") return Objective::time;
  if (name == "cost") return Objective::cost;
  if (name == "mfu") return Objective::mfu;
  return std::nullopt;
}

std::string_view objective_name(Objective o) {
  switch (o) {
    case Objective::time: return "time";
    case Objective::cost: return "cost";
    case Objective::mfu: return "mfu";
  }
  return "?";
}

double step_cost_usd(double step_time_s, int gpus, double usd_per_gpu_hour) {
  return step_time_s / 3600.0 * gpus * usd_per_gpu_hour;
}

double Ranker::score(const Estimate& e) const {
  return objective == Objective::mfu ? -e.mfu : score_bound(e.step_time_s);
}

double Ranker::score_bound(double step_time_s) const {
  switch (objective) {
    case Objective::time: return step_time_s;
    case Objective::cost: return step_cost_usd(step_time_s, gpus, usd_per_gpu_hour);
    // MFU = model FLOPs / (time × GPUs × peak): a longer step has a lower MFU.
    case Objective::mfu: return -model_flops_per_step / (step_time_s * gpus * peak_flops);
  }
  return step_time_s;
}

}  // namespace gpuplan
