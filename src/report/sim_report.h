// Text and JSON of the scheduler simulation's answer (infer/sim_answer.h): latency percentiles,
// throughput, goodput, and the scheduler it simulated.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "infer/sim_answer.h"

namespace gpuplan {

nlohmann::ordered_json simulation_json(const SimAnswer& a);
std::string simulation_text(const SimAnswer& a);

}  // namespace gpuplan
