#include "search/offers.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

namespace gpuplan {

void check_providers(const Catalog& catalog, const std::vector<std::string>& providers) {
  std::set<std::string> known;
  for (const CloudOffer& off : catalog.offers) known.insert(off.provider);
  for (const std::string& p : providers) {
    if (!known.contains(p)) {
      throw Error(fmt::format("unknown provider '{}'; known providers: {}", p, fmt::join(known, ", ")));
    }
  }
}

std::vector<const CloudOffer*> rentable_offers(const Catalog& catalog, const Gpu& gpu,
                                               const std::vector<std::string>& providers) {
  std::vector<const CloudOffer*> offers;
  for (const CloudOffer& off : catalog.offers) {
    if (off.gpu != gpu.id || off.pricing != "on-demand" || off.historical || off.gpu_component_only) continue;
    if (off.usd_per_gpu_hour <= 0) continue;
    if (!providers.empty() && std::find(providers.begin(), providers.end(), off.provider) == providers.end()) continue;
    offers.push_back(&off);
  }
  return offers;
}

}  // namespace gpuplan
