// A plan's JSON form, both ways: the keys of `gpuplan train --json` "plan", written once here
// for every answer that shows a plan (train, search, sweep) and read back by sweeps.
#pragma once

#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "plan/plan.h"
#include "workload/model.h"

namespace gpuplan {

// `framework`: the framework entry the plan runs under (catalog/framework.h), written as
// "framework" when not empty.
nlohmann::ordered_json plan_json(const Plan& plan, const ModelSpec& model, std::string_view framework = {});
// The same keys for a plan whose seq_len is already set (sweeps).
nlohmann::ordered_json plan_json(const Plan& plan);
// The inverse of plan_json; throws Error on a malformed object.
Plan plan_from_json(const nlohmann::json& j);

}  // namespace gpuplan
