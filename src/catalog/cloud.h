// Cloud instance prices, each dated: prices move (AWS cut P4/P5 by up to ~45% in June 2025).
// Loaded from data/clouds/*.toml by cloud_parse.cpp.
#pragma once

#include <optional>
#include <string>

#include "catalog/provenance.h"

namespace gpuplan {

struct CloudOffer {
  std::string provider;  // "aws", "gcp", "azure", "lambda", "coreweave", "runpod", "vast"
  std::string instance;  // "p5.48xlarge"; for per-GPU offers a descriptive sku
  std::string gpu;       // gpu id
  int gpu_count = 0;
  std::string region;
  std::string pricing;   // on-demand | spot | reserved-1y | reserved-3y | reserved | capacity-block
  double usd_per_hour = 0;      // whole instance
  double usd_per_gpu_hour = 0;  // usd_per_hour / gpu_count
  std::string price_date;       // ISO date the price was observed
  bool historical = false;      // superseded price kept to reproduce older studies
  std::string system;           // system id, when the instance matches one
  std::string notes;
  Provenance provenance;
};

}  // namespace gpuplan
