// `gpuplan validate collectives FILE.csv`: predicts every row of a measured-collectives file
// (the schema of shared/data/collectives.csv: nccl-tests results) and aggregates the errors.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "cost/collective.h"
#include "validate/error_stats.h"

namespace gpuplan {

struct CollectiveValidationRow {
  int line = 0;
  std::string id;
  std::string gpu;
  std::string system;
  int nodes = 1;
  int gpus = 1;
  CollectiveRequest request;
  double measured_time_s = 0;
  double measured_busbw_bytes_per_s = 0;
  CollectiveEstimate predicted;
  double error = 0;  // (predicted - measured) / measured, on time
};

struct CollectiveValidation {
  std::string file;
  std::string params_id;
  std::vector<CollectiveValidationRow> rows;
  ErrorGroups overall;
  ErrorGroups by_band;  // "< 1 MiB", ">= 1 MiB"
  ErrorGroups by_gpu;
  ErrorGroups by_op;
  ErrorGroups by_gpu_op;
};

// Throws Error naming file, line and column for a row it cannot read or cost (an unknown
// system, a group the system cannot hold, no measured time or bus bandwidth).
CollectiveValidation validate_collectives(const CsvTable& csv, const Catalog& catalog, const CollectiveParams& params);

}  // namespace gpuplan
