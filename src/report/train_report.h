// Text and JSON for training estimates: `gpuplan train`, `gpuplan memory` (with the seed
// documents' rule-of-thumb table) and the plan part of `gpuplan validate training`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "plan/plan_json.h"
#include "plan/train_request.h"

namespace gpuplan {

// The answers of `gpuplan train` and `gpuplan memory`, with what --calibration changed.
std::string to_text(const TrainAnswer& answer);
nlohmann::ordered_json to_json(const TrainAnswer& answer);
std::string to_text(const MemoryAnswer& answer);
nlohmann::ordered_json to_json(const MemoryAnswer& answer);
std::string to_text(const RuleOfThumbAnswer& answer);
nlohmann::ordered_json to_json(const RuleOfThumbAnswer& answer);

// "tp 8 · pp 4 (vp 2) · dp 16 · sp · zero 1 · mb 1 · gb 1024 · seq 4096 · selective · bf16"
std::string plan_summary(const Plan& plan, const ModelSpec& model);

// One plan's estimate; `placement` is the answer's (placed_groups, plan/placement.h).
std::string train_text(const TrainContext& ctx, const Plan& plan, const Estimate& est,
                       const std::vector<PlacedGroup>& placement);
nlohmann::ordered_json train_json(const TrainContext& ctx, const Plan& plan, const Estimate& est,
                                  const std::vector<PlacedGroup>& placement);

// `state`: the answer's bytes per parameter of the model states (TrainAnswer::state).
std::string memory_text(const TrainContext& ctx, const Plan& plan, const Estimate& est, const StateBytes& state);
nlohmann::ordered_json memory_json(const TrainContext& ctx, const Plan& plan, const Estimate& est);

// The seed documents' table (7B → 14 GB weights, ~56 GB to train ... 1T → 2 TB, ~8 TB: 8
// bytes per parameter) beside the 16 bytes per parameter of mixed-precision Adam.
std::string rule_of_thumb_text(const RuleOfThumbAnswer& answer);
nlohmann::ordered_json rule_of_thumb_json(const RuleOfThumbAnswer& answer);

}  // namespace gpuplan
