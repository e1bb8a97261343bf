#include "catalog/cloud_price.h"

namespace gpuplan {

bool is_current_whole_on_demand(const CloudOffer& offer) {
  return offer.pricing == "on-demand" && !offer.historical && !offer.gpu_component_only && offer.usd_per_gpu_hour > 0;
}

std::string offer_price_source(const CloudOffer& offer) {
  return offer.provider + " " + offer.instance + " on-demand, " + offer.price_date;
}

std::optional<GpuPrice> cheapest_on_demand(const Catalog& catalog, const Gpu& gpu) {
  const CloudOffer* best = nullptr;
  for (const CloudOffer& o : catalog.offers) {
    if (!is_current_whole_on_demand(o) || catalog.find_gpu(o.gpu) != &gpu) continue;
    if (!best || o.usd_per_gpu_hour < best->usd_per_gpu_hour) best = &o;
  }
  if (!best) return std::nullopt;
  return GpuPrice{best->usd_per_gpu_hour, offer_price_source(*best), best};
}

}  // namespace gpuplan
