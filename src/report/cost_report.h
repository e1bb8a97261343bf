// The cost page and `gpuplan cost --html` / `--report-data`: what a run costs on each cloud offer
// and what owning its GPUs costs over time (econ/cost_ownership.h), said in words first
// ("Training Llama 3.1 70B on 64 H100 SXM5 80GB for 100 billion tokens takes 17 days and costs
// $77,900 on-demand ...; owning the 64 GPUs breaks even after 19.4 months ..."), then the data
// the charts draw (the offers, cost over time, the TCO's parts), then the assumptions with
// their units and sources. Formats only: every figure comes from the answer struct.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "econ/cost_ownership.h"
#include "report/assumptions.h"

namespace gpuplan {

// The answer in one sentence (report_data's "headline").
std::string answer_words(const CostOwnershipAnswer& answer);

// The owning and renting assumptions: each figure with its unit and where it came from.
std::vector<AssumptionRow> ownership_assumption_rows(const CostOwnershipAnswer& answer);

// {"kind": "cost", "headline", "answer" (= `cost --json`), "assumptions", "on_demand_row",
// "cheapest_row", "ownership" ({"tco": `tco --json`, "over_time": {...}}, or null with
// "no_ownership")}: what the report's script draws and /api/report/cost answers.
nlohmann::ordered_json report_data(const CostOwnershipAnswer& answer);
nlohmann::ordered_json to_json(const CostOverTime& over_time);

// "llama3.1-70b on 64 × h100-sxm: cost and ownership"
std::string report_title(const CostOwnershipAnswer& answer);

// `cost --html/--report-data` print the cost answer itself as `cost` does.
nlohmann::ordered_json to_json(const CostOwnershipAnswer& answer);
std::string to_text(const CostOwnershipAnswer& answer);

}  // namespace gpuplan
