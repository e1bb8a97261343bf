// The `gpuplan validate ...` questions as library calls: a request (what the command line
// gives) in, an answer (the validator's result, which report/validation_report.h formats) out.
#pragma once

#include <string>

#include "catalog/catalog.h"
#include "validate/calibration_validation.h"
#include "validate/collective_validation.h"
#include "validate/infer_validation.h"
#include "validate/train_validation.h"

namespace gpuplan {

// validate collectives FILE [--leave-one-source-out] [--leave-one-gpu-out] [--fit]
struct ValidateCollectivesRequest {
  std::string file;    // a CSV in the schema of shared/data/collectives.csv, or nccl-tests output
  std::string system;  // nccl-tests output only: the system it ran on ("" = the GPU's own)
  bool leave_one_source_out = false;
  bool leave_one_gpu_out = false;
  bool fit = false;
  ProgressSink progress{};  // not a field: fits done so far, for the CLI's stderr (core/progress.h)
};
using ValidateCollectivesAnswer = CollectiveValidation;

// validate training FILE.csv [--leave-one-source-out] [--time-split DATE] [--fit]
struct ValidateTrainingRequest {
  std::string file;  // the schema of shared/data/training-runs.csv
  bool leave_one_source_out = false;
  bool fit = false;
  std::string time_split{};  // "YYYY-MM-DD": fit on sources published before it, predict the rest ("" = none)
  ProgressSink progress{};   // not a field: fits done so far, for the CLI's stderr (core/progress.h)
};
using ValidateTrainingAnswer = TrainValidation;

// validate inference FILE.csv [--leave-one-gpu-out | --leave-one-source-out] [--fit]
struct ValidateInferenceRequest {
  std::string file;  // the schema of shared/data/inference-runs.csv
  bool leave_one_gpu_out = false;
  bool leave_one_source_out = false;
  bool fit = false;
  bool simulate = false;  // --simulate: TTFT/TPOT of closed-loop rows from the scheduler simulation
  ProgressSink progress{};  // not a field: fits done so far, for the CLI's stderr (core/progress.h)
};
using ValidateInferenceAnswer = InferValidation;

// validate calibration PROFILE.json [--system NAME]
struct ValidateCalibrationRequest {
  std::string file;    // a profile written by gpuplan-bench
  std::string system;  // "" = the GPU's own system for the collectives
};
using ValidateCalibrationAnswer = CalibrationValidation;

// Each throws Error on bad input: a missing or unreadable file (naming it), a malformed row
// (naming file, line and column), an unknown --system.
ValidateCollectivesAnswer answer_validate_collectives(const Catalog& catalog, const ValidateCollectivesRequest& request);
ValidateTrainingAnswer answer_validate_training(const Catalog& catalog, const ValidateTrainingRequest& request);
ValidateInferenceAnswer answer_validate_inference(const Catalog& catalog, const ValidateInferenceRequest& request);
ValidateCalibrationAnswer answer_validate_calibration(const Catalog& catalog, const ValidateCalibrationRequest& request);

}  // namespace gpuplan
