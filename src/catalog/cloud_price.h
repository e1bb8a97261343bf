// The one rule for "what does an hour of this GPU cost": the cheapest current on-demand
// $/GPU-hour among the catalog's offers that price the whole machine. Lives at catalog level
// so that infer/ and search/ (below econ/) price plans with the same figure econ/ shows.
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.h"

namespace gpuplan {

// A price a ranking or an estimate uses: $/GPU-hour and where it came from.
struct GpuPrice {
  double usd_per_gpu_hour = 0;
  std::string source;  // "lambda 8x H100 SXM on-demand, 2025-06-10" or "--usd-per-gpu-hour"
  const CloudOffer* offer = nullptr;
};

// An offer one can rent today at a price that covers the whole machine: on-demand, not
// superseded (historical), not a GPU-only component price (GCP bills the VM apart, so its GPU
// part understates the hour), with a positive price.
bool is_current_whole_on_demand(const CloudOffer& offer);

// "provider instance on-demand, YYYY-MM-DD": how a price names the offer it came from.
std::string offer_price_source(const CloudOffer& offer);

// The cheapest is_current_whole_on_demand offer for `gpu` (offers naming the GPU by an alias
// count too); nullopt when there is none. Ties keep the catalog's first offer.
std::optional<GpuPrice> cheapest_on_demand(const Catalog& catalog, const Gpu& gpu);

}  // namespace gpuplan
