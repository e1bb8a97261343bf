// `gpuplan cost --html` / `--report-data` and the web UI's cost page as one library call: what a
// run costs on each cloud offer (answer_cost), what owning the same GPUs costs over the TCO
// period (answer_tco), and when owning breaks even with renting them on-demand around the
// clock (cost_over_time). Nothing here is new arithmetic: the three answers, joined.
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "econ/cost_over_time.h"
#include "econ/cost_request.h"
#include "econ/tco_request.h"

namespace gpuplan {

struct CostOwnershipAnswer {
  CostAnswer cost;
  const Gpu* gpu = nullptr;          // the catalog's, for its name
  const ModelSpec* model = nullptr;  // the run's model where it is given as one (--model)
  // The cheapest current on-demand row of cost.rows (the rate the comparison rents at), and
  // the cheapest row of any pricing (spot, reserved); nullopt when there is none.
  std::optional<std::size_t> on_demand_row;
  std::optional<std::size_t> cheapest_row;
  // Owning the run's GPUs (cost.gpus) for TCO's period; absent where the run has no GPU count
  // (given as GPU-hours), no on-demand rate, or the catalog cannot price the servers (why in
  // `no_ownership`, the TCO question's own message).
  std::optional<TcoAnswer> tco;
  std::optional<CostOverTime> over_time;  // month by month over tco->years
  std::string no_ownership;
};

// Throws Error for a bad cost request (answer_cost's messages); a TCO the catalog cannot price
// is not an error (the run's cost still answers).
CostOwnershipAnswer answer_cost_ownership(const Catalog& catalog, const CostRequest& request);

}  // namespace gpuplan
