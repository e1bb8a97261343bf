// Calibration from Python: calibrate_training (`gpuplan calibrate training RUNS.csv --out FILE`,
// validate/calibrate_request.h) and validate_calibration (`gpuplan validate calibration
// PROFILE.json`, validate/validate_request.h) — the same library calls and writers as the CLI.
#include <pybind11/stl.h>

#include "calibration/training_calibration_file.h"
#include "common.h"
#include "core/error.h"
#include "kwargs.h"
#include "report/validation_report.h"
#include "report/training_calibration_report.h"
#include "validate/calibrate_request.h"
#include "validate/validate_request.h"

namespace gpuplan::py {
namespace {

using CalibrateResult = Result<CalibrateTrainingAnswer>;
using CalibrationValidationResult = Result<ValidateCalibrationAnswer>;

}  // namespace

void bind_calibrate(pyb::module_& m) {
  result_class<CalibrateTrainingAnswer>(
      m, "TrainingCalibration", "Constants fitted on your own training runs (gpuplan calibrate training).")
      .def_property_readonly("calibration",
                             [](const CalibrateResult& r) {
                               return json_to_py(training_calibration_json(r.get().fit.calibration));
                             },
                             "The calibration file's content: save it as JSON and pass it as calibration=.")
      .def_property_readonly("out", [](const CalibrateResult& r) { return r.get().out; },
                             "The file written (out=), or '' when none was asked for.")
      .def_property_readonly("runs", [](const CalibrateResult& r) { return table(to_json(r.get())["runs"]); },
                             "Every run, measured against predicted before and after: a DataFrame where pandas is "
                             "installed.");
  m.def(
      "calibrate_training",
      [](const pyb::object& runs_arg, const pyb::object& out_arg, const pyb::object& catalog_arg) {
        CalibrateTrainingRequest request;
        request.runs = path_arg(runs_arg, "calibrate_training");
        if (!out_arg.is_none()) request.out = path_arg(out_arg, "calibrate_training(out=)");
        CatalogPtr catalog = catalog_from(catalog_arg);
        pyb::gil_scoped_release release;
        return make_result(catalog, answer_calibrate_training(*catalog, request));
      },
      pyb::arg("runs"), pyb::kw_only(), pyb::arg("out") = pyb::none(), pyb::arg("catalog") = pyb::none(),
      "`gpuplan calibrate training RUNS.csv --out FILE`: fit the constants your own runs can identify;\n"
      "with out= the calibration file is written there (train(calibration=...) reads it back).");

  result_class<ValidateCalibrationAnswer>(
      m, "CalibrationValidation", "A gpuplan-bench profile: predicted vs measured (gpuplan validate calibration).");
  m.def(
      "validate_calibration",
      [](const pyb::object& file_arg, const std::string& system, const pyb::object& catalog_arg) {
        ValidateCalibrationRequest request;
        request.file = path_arg(file_arg, "validate_calibration");
        request.system = system;
        CatalogPtr catalog = catalog_from(catalog_arg);
        pyb::gil_scoped_release release;
        return make_result(catalog, answer_validate_calibration(*catalog, request));
      },
      pyb::arg("file"), pyb::kw_only(), pyb::arg("system") = "", pyb::arg("catalog") = pyb::none(),
      "`gpuplan validate calibration PROFILE.json [--system S]`: what gpuplan predicts for everything a\n"
      "gpuplan-bench profile measured, before and after calibrating with it.");
}

}  // namespace gpuplan::py
