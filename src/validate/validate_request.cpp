#include "validate/validate_request.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "calibration/profile.h"
#include "core/csv.h"
#include "catalog/source_date.h"
#include "core/error.h"
#include "core/input_file.h"
#include "cost/collective.h"

namespace gpuplan {
namespace {

// The FILE argument must name a readable regular file: say which schema it should follow, so
// the message is the fix ("validate training FILE 'x.csv': no such file; ...").
void check_file(const std::string& command, const std::string& file, const std::string& schema) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (file.empty()) throw Error(fmt::format("{} FILE: missing; give {}", command, schema));
  if (!fs::exists(file, ec)) throw Error(fmt::format("{} FILE '{}': no such file; give {}", command, file, schema));
  // What is not a regular file (a FIFO, a device, a directory) is refused by the read itself,
  // naming what it is (core/input_file.h).
}

// The CSV, refused when it holds no row under its header: "0 rows, 0.0% error" would read as a
// perfect score.
CsvTable read_runs_csv(const std::string& command, const std::string& file, const std::string& schema) {
  CsvTable table = CsvTable::read(file);
  if (table.rows().empty()) {
    throw Error(fmt::format("{} FILE '{}': no rows under the header, so nothing to validate; give {} with at least "
                            "one row",
                            command, file, schema));
  }
  return table;
}

}  // namespace

ValidateCollectivesAnswer answer_validate_collectives(const Catalog& catalog, const ValidateCollectivesRequest& request) {
  check_file("validate collectives", request.file,
             "a CSV in the schema of shared/data/collectives.csv, or nccl-tests output (all_reduce_perf ...)");
  CollectiveValidationOptions options;
  options.leave_one_source_out = request.leave_one_source_out;
  options.leave_one_gpu_out = request.leave_one_gpu_out;
  options.fit = request.fit;
  options.progress = &request.progress;
  const CollectiveParams& params = default_collective_params(catalog);
  const std::string text = read_input_file(request.file, "validate collectives");
  if (looks_like_nccl_tests_log(text)) {
    const NcclTestsLog log = parse_nccl_tests_log(text, request.file);
    return validate_collective_measurements(nccl_tests_measurements(log, catalog, request.system), request.file,
                                            catalog, params, options);
  }
  if (!request.system.empty()) {
    throw Error(fmt::format("--system {}: only for nccl-tests output; a CSV names the system in its 'system' column",
                            request.system));
  }
  const CsvTable table = CsvTable::parse(text, request.file);
  if (table.rows().empty()) {
    throw Error(fmt::format("validate collectives FILE '{}': no rows under the header, so nothing to validate; give "
                            "a CSV in the schema of shared/data/collectives.csv with at least one row",
                            request.file));
  }
  return validate_collectives(table, catalog, params, options);
}

ValidateTrainingAnswer answer_validate_training(const Catalog& catalog, const ValidateTrainingRequest& request) {
  check_file("validate training", request.file, "a CSV in the schema of shared/data/training-runs.csv");
  TrainValidationOptions options;
  options.leave_one_source_out = request.leave_one_source_out;
  options.fit = request.fit;
  if (!request.time_split.empty() && !is_iso_date(request.time_split)) {
    throw Error(fmt::format("--time-split '{}': not a date; use YYYY-MM-DD (e.g. 2026-01-01: fit on sources "
                            "published before 2026, predict the 2026 rows)",
                            request.time_split));
  }
  options.time_split = request.time_split;
  options.progress = &request.progress;
  return validate_training(
      read_runs_csv("validate training", request.file, "a CSV in the schema of shared/data/training-runs.csv"), catalog,
      options);
}

ValidateInferenceAnswer answer_validate_inference(const Catalog& catalog, const ValidateInferenceRequest& request) {
  check_file("validate inference", request.file, "a CSV in the schema of shared/data/inference-runs.csv");
  if (request.leave_one_gpu_out && request.leave_one_source_out) {
    throw Error("validate inference: --leave-one-gpu-out and --leave-one-source-out are two different held-out "
                "scores; give one of them (run the command twice for both)");
  }
  InferValidationOptions options;
  options.holdout = request.leave_one_gpu_out      ? InferHoldout::gpu
                    : request.leave_one_source_out ? InferHoldout::source
                                                   : InferHoldout::none;
  options.fit = request.fit;
  options.simulate = request.simulate;
  options.progress = &request.progress;
  return validate_inference(
      read_runs_csv("validate inference", request.file, "a CSV in the schema of shared/data/inference-runs.csv"),
      catalog, options);
}

ValidateCalibrationAnswer answer_validate_calibration(const Catalog& catalog, const ValidateCalibrationRequest& request) {
  check_file("validate calibration", request.file, "a profile written by gpuplan-bench (docs/calibration.md)");
  if (!request.system.empty() && !catalog.find_system(request.system)) {
    try {
      catalog.system(request.system);  // throws "unknown system 'x'; did you mean ...?"
    } catch (const Error& e) {
      throw Error(fmt::format("--system: {}", e.what()));
    }
  }
  return validate_calibration(load_calibration(request.file), catalog, request.system);
}

}  // namespace gpuplan
