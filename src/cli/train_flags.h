// The flags `gpuplan train` and `gpuplan memory` share, bound to a TrainRequest
// (plan/train_request.h): model, GPU, cluster and the plan.
#pragma once

#include "cli/args.h"
#include "plan/train_request.h"

namespace gpuplan {

struct TrainFlags {
  TrainRequest request;
  bool json = false;
};

// Adds the shared options to `cmd`, storing into `flags`: the fields of plan/train_fields.h
// and --json.
void add_train_flags(CliCommand& cmd, TrainFlags& flags);

}  // namespace gpuplan
