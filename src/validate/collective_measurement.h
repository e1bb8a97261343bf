// One measured collective (a row of shared/data/collectives.csv or of an nccl-tests log),
// resolved against the catalog: what `validate collectives` predicts and what its fitter
// (collective_constants_fit.h) fits to.
#pragma once

#include <string>

#include "cost/collective.h"

namespace gpuplan {

struct CollectiveMeasurement {
  int line = 0;
  std::string id;
  std::string source;  // "" = one unnamed source
  std::string gpu;
  std::string system;  // catalog id
  int nodes = 1;
  int gpus = 1;
  CollectiveRequest request;
  double measured_time_s = 0;
};

}  // namespace gpuplan
