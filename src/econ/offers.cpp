#include "econ/offers.h"

#include <fmt/format.h>

#include <algorithm>

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
  for (const CloudOffer& o : catalog.offers) {
    if (o.historical && !filter.include_historical) continue;
    if (o.pricing == "index") continue;  // a published index, not something one can rent
    if (catalog.find_gpu(o.gpu) != filter.gpu) continue;
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
