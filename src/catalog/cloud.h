// Cloud instance prices, each dated: prices move (AWS cut P4/P5 by up to ~45% in June 2025).
// Loaded from data/clouds/*.toml by cloud_parse.cpp.
#pragma once

#include <optional>
#include <string>

#include "core/provenance.h"

namespace gpuplan {

struct CloudOffer {
  std::string provider;  // "aws", "gcp", "azure", "lambda", "coreweave", "runpod", "vast"
  std::string instance;  // "p5.48xlarge"; for per-GPU offers a descriptive sku
  std::string gpu;       // gpu id
  int gpu_count = 0;
  std::string region;
  // on-demand | spot | reserved-1y | reserved-3y | reserved (term not stated) | capacity-block |
  // index (a published price index, not an offer one can buy)
  std::string pricing;
  double usd_per_hour = 0;      // whole instance
  double usd_per_gpu_hour = 0;  // usd_per_hour / gpu_count
  std::string price_date;       // ISO date the price was observed
  bool price_date_estimated = false;  // the source gives no exact date; see notes
  bool historical = false;      // superseded price kept to reproduce older studies
  bool gpu_component_only = false;  // GCP bills GPU and VM apart: this price leaves the VM out
  std::string system;           // system id, when the instance matches one
  // The most GPUs one can rent on this offer at once (a marketplace's largest listing, a
  // provider's largest cluster product); 0 = unknown. A plan needing more is not priced on it.
  int max_gpus = 0;
  std::string max_gpus_source;  // where max_gpus comes from ("" when unknown)
  std::string notes;
  Provenance provenance;
};

}  // namespace gpuplan
