// `gpuplan calibrate training RUNS.csv [--out FILE]` as one library call, so the CLI and the
// Python module only translate: read the runs (strictly), fit what they can identify
// (validate/training_calibration.h), and write the calibration file that
// `train|search --calibration FILE` reads back (calibration/training_calibration_file.h).
#pragma once

#include <string>

#include "catalog/catalog.h"
#include "validate/training_calibration.h"

namespace gpuplan {

struct CalibrateTrainingRequest {
  std::string runs;  // RUNS.csv: the training-runs schema plus the optional measured columns
  std::string out;   // the calibration file to write; "" = fit and report only (Python keeps it in memory)
};

struct CalibrateTrainingAnswer {
  TrainingCalibrationAnswer fit;
  std::string out;  // the calibration file written ("" = none)
};

// Throws Error (exit 2) for an unreadable or malformed RUNS.csv (naming file, line and column),
// and for an --out that cannot be written (naming the path), before anything is written.
CalibrateTrainingAnswer answer_calibrate_training(const Catalog& catalog, const CalibrateTrainingRequest& request);

}  // namespace gpuplan
