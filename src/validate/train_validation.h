// `gpuplan validate training FILE.csv`: predicts every row of a published-runs file (schema:
// shared/data/README.md, training-runs.csv) and compares it with what the source measured: the
// step time, or the step time its tokens/s, TFLOP/s, MFU or GPU-hours imply
// (validate/measured_quantity.h).
// Unknown fields and blank micro-batches are resolved as the row's framework would
// (data/fitted/frameworks/ [defaults]; the fastest setting that fits for a field without a
// default, plan/resolve.h); each row says what was chosen and the spread of step times over
// every setting of the unknown fields that fits (its uncertainty).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/csv.h"
#include "core/progress.h"
#include "plan/evaluate.h"
#include "plan/fit.h"
#include "validate/error_stats.h"
#include "validate/measured_quantity.h"

namespace gpuplan {

struct TrainValidationRow {
  std::string id;
  std::string source;  // the row's source, shortened to a group name
  int line = 0;
  std::string model;   // zoo id, or "row shape" when built from the row's columns
  std::string gpu;
  std::string system;
  std::string framework;  // the framework entry its `framework` cell names ("" when the catalog has none)
  int gpus = 0;
  Plan plan;
  std::string chosen;       // what was resolved for unknown fields ("" when nothing was)
  // With unknown fields: the fastest and slowest step over the settings that fit (0 when none).
  double fastest_step_s = 0;
  double slowest_step_s = 0;
  std::string assumptions;  // shape assumptions (MLP kind, vocabulary) for row-built models
  bool evaluated = false;   // a prediction exists
  std::string skipped;      // why not, when not
  double measured_step_s = 0;        // 0 = nothing comparable was measured (see not_scored)
  bool measured_derived = false;     // implied by a rate or GPU-hours, not a measured step time
  MeasuredQuantity compared_on = MeasuredQuantity::step_time;
  FlopsCounting flops_counting = FlopsCounting::not_applicable;  // for TFLOP/s and MFU rows
  double measured_value = 0;   // in the compared quantity's unit (quantity_at_step_time)
  double predicted_value = 0;  // the prediction in the same quantity and FLOP counting
  std::string not_scored;      // why a predicted row has no error ("" when it has one)
  double predicted_step_s = 0;
  double error = 0;  // predicted / measured step time − 1 (= measured / predicted rate − 1)
  std::optional<double> loso_error;  // with --leave-one-source-out: with the efficiency refit without its source
  std::string published;             // its source's publication date (data/validation/, "" when none)
  std::optional<double> time_split_error;  // with --time-split, for a row published on or after the date
  Estimate estimate;
};

struct TrainValidation {
  std::string file;
  std::vector<TrainValidationRow> rows;
  ErrorGroups by_source;
  ErrorGroups by_quantity;  // by the quantity rows were compared on
  ErrorSummary overall;
  double within_15_share = 0;
  double within_20_share = 0;
  // --fit: the efficiency entries refit on every row, and the errors they give.
  bool fit = false;
  std::vector<Efficiency> fitted;
  std::vector<int> fitted_rows;  // rows behind each fitted entry
  std::vector<Framework> fitted_frameworks;
  std::vector<int> fitted_framework_rows;
  ErrorSummary fitted_overall;
  double fitted_within_15_share = 0;
  std::vector<ConstantAtBound> at_bounds;  // fitted figures at or within 1% of a bound
  std::vector<UnidentifiedConstant> not_identified;  // free figures no row sees: kept, not fitted
  // Leave-one-source-out: each source predicted with the efficiency refit on the others.
  bool loso = false;
  ErrorGroups loso_by_source;
  ErrorSummary loso_overall;
  double loso_within_15_share = 0;
  // --time-split DATE: the rows published on or after DATE predicted with every constant fitted
  // on the rows published before it.
  std::string time_split;  // the date ("" = not run)
  int time_split_fit_rows = 0;
  ErrorGroups time_split_by_source;
  ErrorSummary time_split_overall;
  double time_split_within_15_share = 0;
};

struct TrainValidationOptions {
  bool fit = false;
  bool leave_one_source_out = false;
  std::string time_split;  // "YYYY-MM-DD" or "" (every scored row then needs a dated source)
  const ProgressSink* progress = nullptr;  // fits done of all (core/progress.h); null = none
};

// Reads the rows (throws Error on a malformed file) and predicts each; a row the catalog
// cannot place (unknown GPU) is kept with `skipped` set.
TrainValidation validate_training(const CsvTable& csv, const Catalog& catalog, const TrainValidationOptions& options = {});

}  // namespace gpuplan
