// Text and JSON for `gpuplan collective`: one estimate with its per-level breakdown and the
// candidates it beat, or an nccl-tests-style sweep over message sizes. Every figure comes from
// the answer (calibration/collective_question.h); nothing is estimated here.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "calibration/collective_question.h"

namespace gpuplan {

// The whole answer of `gpuplan collective`: the estimate or the sweep, and under
// --calibration the measured rows (a "calibration" object in JSON, a line per size in text).
nlohmann::ordered_json to_json(const CollectiveAnswer& answer);
std::string to_text(const CollectiveAnswer& answer);

}  // namespace gpuplan
