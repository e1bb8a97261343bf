// The summary `gpuplan sweep` prints on rank 0 (sweep/sweep_request.h): the best plan per
// cell and the run's timings, as text or one JSON object. The result files themselves are
// sweep/write.h's (pure functions of the cells, identical on any rank count).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "sweep/sweep_request.h"

namespace gpuplan {

std::string to_text(const SweepAnswer& answer);
nlohmann::ordered_json to_json(const SweepAnswer& answer);

}  // namespace gpuplan
