#include "econ/offers.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/strings.h"

namespace gpuplan {
namespace {

bool same_name(std::string_view a, std::string_view b) { return normalize_name(a) == normalize_name(b); }

bool provider_selected(const CloudOffer& o, const std::vector<std::string>& providers) {
  return providers.empty() || std::any_of(providers.begin(), providers.end(),
                                          [&](const std::string& p) { return same_name(o.provider, p); });
}

}  // namespace

std::vector<std::string> known_providers(const Catalog& catalog) {
  std::vector<std::string> known;
  for (const CloudOffer& o : catalog.offers) known.push_back(o.provider);
  std::sort(known.begin(), known.end());
  known.erase(std::unique(known.begin(), known.end()), known.end());
  return known;
}

void check_provider(const Catalog& catalog, const std::string& provider, std::string_view flag) {
  if (provider.empty()) return;
  const std::vector<std::string> known = known_providers(catalog);
  if (std::any_of(known.begin(), known.end(), [&](const std::string& p) { return same_name(p, provider); })) return;
  throw Error(fmt::format("{} '{}': no offer from this provider in the catalog; known providers: {}", flag, provider,
                          join(known, ", ")));
}

void check_providers(const Catalog& catalog, const std::vector<std::string>& providers, std::string_view flag) {
  for (const std::string& p : providers) check_provider(catalog, p, flag);
}

std::vector<const CloudOffer*> select_offers(const Catalog& catalog, const OfferFilter& filter) {
  GP_ASSERT(filter.gpu != nullptr, "an offer filter names its GPU");
  std::vector<const CloudOffer*> out;
  // An offer may name its GPU by id or alias, so it is resolved like any name (find_gpu), but
  // once per distinct name: resolving normalises every id and alias of the catalog, and doing
  // it per offer made `recommend --serve` (one call per GPU) 25% slower (docs/performance.md).
  std::vector<std::pair<std::string_view, bool>> resolved;
  const auto is_filter_gpu = [&](const std::string& name) {
    for (const auto& [seen, same] : resolved)
      if (seen == name) return same;
    const bool same = catalog.find_gpu(name) == filter.gpu;
    resolved.emplace_back(name, same);
    return same;
  };
  for (const CloudOffer& o : catalog.offers) {
    if (o.historical && !filter.include_historical) continue;
    if (o.pricing == "index") continue;  // a published index, not something one can rent
    if (!is_filter_gpu(o.gpu)) continue;
    if (!provider_selected(o, filter.providers)) continue;
    if (!filter.instance.empty() && !same_name(o.instance, filter.instance)) continue;
    out.push_back(&o);
  }
  return out;
}

std::vector<const CloudOffer*> rentable_offers(const Catalog& catalog, const Gpu& gpu,
                                               const std::vector<std::string>& providers) {
  OfferFilter filter;
  filter.gpu = &gpu;
  filter.providers = providers;
  std::vector<const CloudOffer*> out = select_offers(catalog, filter);
  std::erase_if(out, [](const CloudOffer* o) { return !is_current_whole_on_demand(*o); });
  return out;
}

}  // namespace gpuplan
