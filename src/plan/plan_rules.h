// The structural rules of a training plan (issue 34): a plan that breaks one cannot be run at
// all (--pp 64 on 32 layers, expert parallelism on a dense model, --vp without a pipeline), so
// it is bad input, refused with exit 2, the rule and the nearest valid values. A plan that keeps
// every rule but does not fit in memory is an answer ("does not fit"), not an error.
// plan/evaluate.cpp keeps the same rules as infeasibility reasons for the search's candidates.
#pragma once

#include <cstdint>
#include <string>

#include "plan/plan.h"
#include "workload/model.h"

namespace gpuplan {

// Throws Error naming the broken rule and the nearest valid values. `seq_len` is the plan's
// sequence length as resolved (the model's default when the plan says 0).
void check_train_plan_rules(const ModelSpec& model, const Plan& plan, int seq_len);

// "1, 2, 4 or 8": the divisors of `n` nearest `value` (two below, two above at most).
std::string nearest_divisors_text(std::int64_t n, std::int64_t value);

}  // namespace gpuplan
