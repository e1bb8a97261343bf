// What one cell of a sweep answers (the search's top K, or why nothing fits), and its JSON
// form: the same object travels from a rank to rank 0 and lands in the result file, so a
// merged multi-rank result is the single-process one byte for byte.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "plan/plan.h"

namespace gpuplan {

// One ranked plan of a cell (or, for a cell where nothing fits, the plan needing the least memory).
struct SweepPlanRow {
  int rank = 0;  // 1 = best; 0 for the closest infeasible plan
  Plan plan;
  double score = 0;  // the objective's, lower is better (−MFU for mfu)
  double step_time_s = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;
  double memory_bytes = 0;  // per GPU, the most loaded pipeline rank
  double memory_capacity_bytes = 0;
  double usd_per_step = 0;  // 0 when the GPU has no price
  std::string bottleneck;
};

struct SweepCellResult {
  int cell = 0;
  std::string model;  // ids, as the catalog (or the config.json) names them
  std::string gpu;
  std::string system;  // "" for one GPU
  int gpus = 0;
  long long plans_in_space = 0;
  bool complete = true;  // false when search.time_limit_s stopped the search
  double usd_per_gpu_hour = 0;
  std::string price_source;
  std::vector<SweepPlanRow> top;        // best first; empty when no plan fits
  std::optional<SweepPlanRow> closest;  // when top is empty and some plan is structurally valid
  std::string reason;                   // when top is empty: why the closest plan fails

  bool feasible() const { return !top.empty(); }
};

nlohmann::ordered_json cell_result_json(const SweepCellResult& cell);
// Throws Error on a malformed object (a payload from a different gpuplan build).
SweepCellResult cell_result_from_json(const nlohmann::json& j);

}  // namespace gpuplan
