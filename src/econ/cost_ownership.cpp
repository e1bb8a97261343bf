#include "econ/cost_ownership.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpuplan {

CostOwnershipAnswer answer_cost_ownership(const Catalog& catalog, const CostRequest& request) {
  CostOwnershipAnswer a;
  a.cost = answer_cost(catalog, request);
  a.gpu = catalog.find_gpu(a.cost.gpu);
  if (a.cost.has_model) a.model = catalog.find_model(a.cost.model.model);
  for (std::size_t i = 0; i < a.cost.rows.size(); ++i) {
    const CostRow& row = a.cost.rows[i];
    if (row.historical) continue;
    if (!a.cheapest_row) a.cheapest_row = i;  // rows are cheapest first
    if (!a.on_demand_row && row.pricing == "on-demand") a.on_demand_row = i;
  }
  if (a.cost.gpus <= 0) {
    a.no_ownership = "the run is given as GPU-hours, without a GPU count to buy; give --gpus";
    return a;
  }
  if (!a.on_demand_row) {
    a.no_ownership = "no current on-demand offer to compare owning with";
    return a;
  }
  TcoRequest tco;
  tco.gpu = request.gpu;
  tco.gpus = a.cost.gpus;
  tco.system = request.system;
  try {
    a.tco = answer_tco(catalog, tco);
  } catch (const Error& e) {
    a.no_ownership = e.what();
    return a;
  }
  const OnPremTco& own = a.tco->on_prem;
  const double period_hours = a.tco->years.value * kHoursPerYear;
  // Owning's running cost: power and operations over the period, by the hour (capex is upfront).
  const double running_per_hour = period_hours > 0 ? (own.energy_usd + own.ops_usd) / period_hours : 0;
  // Renting the same GPUs: the on-demand rate per GPU-hour × the GPUs owned (whole nodes).
  const double rent_per_hour = a.cost.rows[*a.on_demand_row].usd_per_gpu_hour * a.tco->gpus;
  const int months = std::max(1, static_cast<int>(std::lround(a.tco->years.value * 12)));
  a.over_time = cost_over_time(a.tco->capex_usd.value, running_per_hour, rent_per_hour, months);
  return a;
}

}  // namespace gpuplan
