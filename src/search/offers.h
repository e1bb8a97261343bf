// The cloud offers the recommenders price against: current on-demand per-GPU prices of one
// GPU (historical rows and GPU-only component prices left out), optionally from chosen
// providers only. Shared by recommend (training) and recommend --serve.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace gpuplan {

// Throws Error for a provider the catalog has no offer from, listing the known ones.
void check_providers(const Catalog& catalog, const std::vector<std::string>& providers);

// Current on-demand offers of `gpu` with a positive per-GPU price; empty `providers` = all.
std::vector<const CloudOffer*> rentable_offers(const Catalog& catalog, const Gpu& gpu,
                                               const std::vector<std::string>& providers);

}  // namespace gpuplan
