// A training calibration: the GPU-family and framework-family constants `gpuplan calibrate
// training RUNS.csv` fitted on a user's own runs (validate/training_calibration.h), written as
// one JSON file that `gpuplan train|search --calibration FILE` reads back (recognised by its
// schema, beside gpuplan-bench profiles and nccl-tests logs). Only the constants the runs could
// see are in the file; everything else stays the catalog's.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "catalog/efficiency.h"
#include "catalog/framework.h"

namespace gpuplan {

inline constexpr const char* kTrainingCalibrationSchema = "gpuplan-training-calibration/1";

// One fitted constant: its name (as in the data files), the catalog's value and the fitted one.
struct CalibratedConstant {
  std::string name;
  double catalog = 0;
  double fitted = 0;
};

struct CalibratedEfficiency {
  std::string id;  // the GPU family (data/fitted/efficiency/)
  std::vector<CalibratedConstant> constants;
};

struct CalibratedFramework {
  std::string id;  // data/fitted/frameworks/
  std::vector<CalibratedConstant> constants;
};

struct TrainingCalibration {
  std::string file;    // where it was read from ("" when built in memory)
  std::string runs;    // the RUNS.csv it was fitted on
  int rows = 0;        // rows with a measured step time
  int memory_rows = 0; // rows with a measured peak memory
  std::vector<std::string> gpus;
  std::vector<CalibratedEfficiency> efficiencies;
  std::vector<CalibratedFramework> frameworks;
  std::vector<std::string> refused;  // constants the rows could not see, and why
};

nlohmann::ordered_json training_calibration_json(const TrainingCalibration& c);
// Throws Error naming the file and the key on a malformed file.
TrainingCalibration parse_training_calibration(const nlohmann::json& doc, const std::string& file);
// The file's calibration when it is one (its "schema"), nullopt when it is some other file
// (a gpuplan-bench profile, an nccl-tests log); throws Error when it cannot be read.
std::optional<TrainingCalibration> read_training_calibration(const std::string& path);

// `base` with the calibration's constants for it (matched by id), and a note per change.
Efficiency calibrated_efficiency(const Efficiency& base, const TrainingCalibration& c, std::vector<std::string>& notes);
Framework calibrated_framework(const Framework& base, const TrainingCalibration& c, std::vector<std::string>& notes);

// The constants a calibration can carry, read from and written to the entries, by name.
std::vector<CalibratedConstant> efficiency_constants(const Efficiency& e);
std::vector<CalibratedConstant> framework_constants(const Framework& f);
void set_efficiency_constant(Efficiency& e, const std::string& name, double value);
void set_framework_constant(Framework& f, const std::string& name, double value);

}  // namespace gpuplan
