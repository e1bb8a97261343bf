// `gpuplan validate inference FILE.csv`: predicted vs measured serving throughput, TTFT and
// TPOT for rows in the schema of shared/data/inference-runs.csv, per row and grouped by
// metric, engine, GPU and model.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "validate/error_stats.h"

namespace gpuplan {

struct InferValidationRow {
  std::string id;
  std::string model, gpu, engine, mode, metric;
  int gpus = 1, tp = 1;
  long long input_len = 0, output_len = 0;
  double concurrency = 0;
  double measured = 0;
  double predicted = 0;  // 0 when infeasible
  std::string note;      // why there is no prediction
  double error() const { return predicted > 0 ? (predicted - measured) / measured : 0; }
};

struct InferValidation {
  std::vector<InferValidationRow> rows;
  ErrorGroups by_metric, by_engine, by_gpu, by_model;
  int skipped = 0;
};

InferValidation validate_inference(const CsvTable& csv, const Catalog& catalog);

}  // namespace gpuplan
