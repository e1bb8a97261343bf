// Text and JSON for `gpuplan collective`: one estimate with its per-level breakdown and the
// candidates it beat, or an nccl-tests-style sweep over message sizes.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "calibration/collective_question.h"
#include "cost/collective.h"

namespace gpuplan {

// Why the chosen algorithm and protocol won, in one or two sentences.
std::string collective_why(const CollectiveQuery& query, const CollectiveTopology& topology,
                           const CollectiveEstimate& chosen, const std::vector<CollectiveEstimate>& candidates);

std::string collective_text(const CollectiveQuery& query, const CollectiveTopology& topology);
nlohmann::ordered_json collective_json(const CollectiveQuery& query, const CollectiveTopology& topology);

std::string collective_sweep_text(const CollectiveQuery& query, const CollectiveTopology& topology);
nlohmann::ordered_json collective_sweep_json(const CollectiveQuery& query, const CollectiveTopology& topology);

// The whole answer of `gpuplan collective`: the estimate or the sweep, and under
// --calibration the measured rows (a "calibration" object in JSON, a line per size in text).
nlohmann::ordered_json to_json(const CollectiveAnswer& answer);
std::string to_text(const CollectiveAnswer& answer);

}  // namespace gpuplan
