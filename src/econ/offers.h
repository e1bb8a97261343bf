// The one place that picks cloud offers for a question: which providers exist, which offers a
// GPU / provider / instance filter selects, and which of them one can rent today at a whole-
// machine price. cost, tco, recommend and recommend --serve all select through here; the price
// rule itself (cheapest current on-demand $/GPU-hour) is catalog/cloud_price.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/cloud_price.h"

namespace gpuplan {

// Providers with at least one offer in the catalog, sorted, each once.
std::vector<std::string> known_providers(const Catalog& catalog);

// Throws Error "FLAG 'NAME': no offer from this provider in the catalog; known providers: ..."
// unless `provider` (matched as normalize_name does: case and punctuation ignored) has an
// offer. An empty name means "any" and passes.
void check_provider(const Catalog& catalog, const std::string& provider, std::string_view flag);
void check_providers(const Catalog& catalog, const std::vector<std::string>& providers, std::string_view flag);

struct OfferFilter {
  const Gpu* gpu = nullptr;            // required: offers for this GPU (by id or alias)
  std::vector<std::string> providers;  // empty = all
  std::string instance;                // empty = all
  bool include_historical = false;     // --all: superseded prices too
};

// Offers one can buy (published price indexes are left out) that pass the filter, in catalog order.
std::vector<const CloudOffer*> select_offers(const Catalog& catalog, const OfferFilter& filter);

// The subset of select_offers that is_current_whole_on_demand: what the recommenders price.
std::vector<const CloudOffer*> rentable_offers(const Catalog& catalog, const Gpu& gpu,
                                               const std::vector<std::string>& providers);

}  // namespace gpuplan
