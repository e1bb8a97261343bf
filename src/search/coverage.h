// Which mechanisms of a training plan the published runs of the training validation
// (docs/validation.md, ../shared/data/training-runs.csv) cover. A plan outside them is still
// predicted; the search says so beside its best plan, since an unchecked mechanism is where
// a model is likeliest to flatter a plan.
#pragma once

#include <string>
#include <vector>

#include "plan/plan.h"

namespace gpuplan {

// One line per mechanism of `plan` that no scored validation row exercises (or that the
// scored rows exercising it are predicted far off on); empty when the plan stays inside.
// `domain_gpus`: GPUs per scale-up domain of the cluster.
std::vector<std::string> unvalidated_mechanisms(const Plan& plan, int domain_gpus);

}  // namespace gpuplan
