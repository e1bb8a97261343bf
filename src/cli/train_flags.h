// The flags `gpuplan train` and `gpuplan memory` share: model, GPU, cluster and the plan.
#pragma once

#include <memory>
#include <string>

#include "cli/args.h"
#include "plan/evaluate.h"

namespace gpuplan {

class CliContext;

struct TrainFlags {
  std::string model;
  std::string gpu;
  std::string system;
  std::string fabric;
  int gpus = 0;
  Plan plan;
  int dp = 0;  // 0 = gpus / (tp × pp × cp)
  std::string recompute = "none";
  std::string precision = "bf16";
  double overhead_gib = -1;
  std::string calibration;  // gpuplan-bench profile of this GPU (cost/calibration_scale.h)
  bool json = false;
};

// Adds the shared options to `cmd`, storing into `flags`.
void add_train_flags(CliCommand& cmd, TrainFlags& flags);

// The model, GPU and cluster named by the flags, and the plan, checked: throws Error on bad
// input (unknown names, --gpus that do not match the degrees). Keeps the loaded model alive.
struct TrainSetup {
  std::shared_ptr<ModelSpec> model;  // when read from a config.json
  TrainContext ctx;
  Plan plan;
  std::vector<std::string> calibration_notes;  // what --calibration changed, and what it could not
};
TrainSetup make_train_setup(CliContext& cli, const TrainFlags& flags);

}  // namespace gpuplan
