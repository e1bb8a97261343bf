// `gpuplan calibrate training RUNS.csv --out FILE`: fits the GPU-family and framework constants
// a user's own training runs can identify, with the fitter of `validate training --fit`
// (plan/fit.h), and the allocator's reserve from the runs' measured peak memory; refuses the
// constants the runs cannot see (changing them moves no run's prediction), and reports every
// run's error before (the catalog's constants) and after (refit without that run: leave one row
// out). The fitted constants go to a file `train|search --calibration FILE` reads back
// (calibration/training_calibration_file.h).
//
// RUNS.csv is the training-runs schema of ../shared/data/training-runs.csv, read strictly (a
// user knows how their runs were configured: nothing is resolved as "unknown"), plus optional
// columns: measured_peak_memory_gib (torch.cuda.max_memory_allocated(): checks the tensor count),
// measured_peak_reserved_gib (torch.cuda.max_memory_reserved(): calibrates the allocator's
// reserve, which takes up whatever the count misses), tied_embeddings or tie_word_embeddings
// (true/false, 1/0).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibration/training_calibration_file.h"
#include "catalog/catalog.h"
#include "core/csv.h"
#include "plan/plan.h"
#include "validate/error_stats.h"

namespace gpuplan {

struct CalibrationRun {
  int line = 0;
  std::string id;
  std::string gpu;
  std::string framework;
  Plan plan;
  double measured_step_s = 0;
  std::optional<double> measured_allocated_bytes;  // measured_peak_memory_gib: max_memory_allocated()
  std::optional<double> measured_peak_bytes;       // measured_peak_reserved_gib: max_memory_reserved()
  double predicted_tensor_bytes = 0;  // the tensors alive at the predicted peak (no allocator reserve)
  double before_step_s = 0;     // the catalog's constants
  double before_peak_bytes = 0; // tensors + the catalog's allocator reserve (what the allocator reserves)
  double loro_step_s = 0;       // refit without this run
  double loro_peak_bytes = 0;
  double fitted_step_s = 0;     // refit on every run (in sample)
  double fitted_peak_bytes = 0;
};

struct TrainingCalibrationAnswer {
  TrainingCalibration calibration;
  std::vector<CalibrationRun> runs;
  ErrorSummary step_before, step_loro;      // step time: catalog constants, leave one row out
  ErrorSummary memory_before, memory_loro;  // reserved peak memory, rows that have one
  std::vector<double> allocated_errors;     // allocated peak: the tensor count alone (nothing is fitted on it)
  ErrorSummary allocated;
  int skipped_oom = 0;  // rows with oom = 1: no step time to fit on
};

// Throws Error (exit 2) naming the file, line, row id, column and value of a bad cell, and the
// fix; and when no row has a measured step time.
TrainingCalibrationAnswer calibrate_training(const Catalog& catalog, const CsvTable& runs);

}  // namespace gpuplan
