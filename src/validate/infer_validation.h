// `gpuplan validate inference FILE.csv`: predicted vs measured serving throughput, TTFT and
// TPOT for rows in the schema of shared/data/inference-runs.csv, per row and grouped by
// metric, engine, GPU, model and by the (engine, GPU, precision, concurrency band, metric)
// group the issue-14 targets are judged on. Held-out modes refit the engine constants that
// `validate/infer_fit.h` fits on every row but those of one GPU (or one source) and score the
// rows left out with them: the headline error (docs/validation.md).
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "core/progress.h"
#include "validate/error_stats.h"
#include "validate/infer_fit.h"

namespace gpuplan {

// none: the catalog's constants (in-sample: they were fitted on this file); gpu: each GPU's
// rows predicted with the constants refit on the other GPUs' rows; source: the same by the
// `source` column.
enum class InferHoldout { none, gpu, source };
std::string_view holdout_name(InferHoldout h);

struct InferValidationRow {
  std::string id;
  std::string source;
  std::string model, gpu, engine, mode, metric;
  std::string precision;  // weight precision as the row gives it
  std::string band;       // concurrency band: offline, c<=8, c9-32, c>32
  int gpus = 1, tp = 1;
  long long input_len = 0, output_len = 0;
  double concurrency = 0;
  double measured = 0;
  double predicted = 0;  // 0 when infeasible
  std::string note;      // why there is no prediction
  // Offline rows whose benchmark states its request count: that count, and the factor its
  // finite run (ramp-up and drain) applied to the steady state (infer/finite_run.h); 0 and 1 else.
  int num_requests = 0;
  double finite_run_factor = 1;
  double error() const { return predicted > 0 ? (predicted - measured) / measured : 0; }
};

// One held-out fold: what was left out and the constants fitted without it.
struct InferFold {
  std::string held_out;  // the GPU id or the source
  int rows = 0;          // rows scored in this fold
  InferFit fitted;
};

struct InferValidation {
  InferHoldout holdout = InferHoldout::none;
  bool simulate = false;
  std::vector<InferValidationRow> rows;
  ErrorGroups by_metric, by_engine, by_gpu, by_model;
  ErrorGroups by_group;  // "engine | gpu | precision | band | metric"
  std::vector<InferFold> folds;                 // held-out modes only
  InferFit fitted_all;           // --fit: the constants fitted on every row
  bool has_fit = false;
  int skipped = 0;
};

struct InferValidationOptions {
  InferHoldout holdout = InferHoldout::none;
  bool fit = false;  // also fit the constants on every row and report them
  // Closed-loop TTFT/TPOT rows from the scheduler simulation (infer/sim_engine.h) instead of
  // the closed-form rules, in the fits too. max_rate_within_slo rows always use it.
  bool simulate = false;
  const ProgressSink* progress = nullptr;  // fits done of all (core/progress.h); null = none
};

InferValidation validate_inference(const CsvTable& csv, const Catalog& catalog,
                                   const InferValidationOptions& options = {});

}  // namespace gpuplan
