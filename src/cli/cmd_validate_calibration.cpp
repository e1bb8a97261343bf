// gpuplan validate calibration PROFILE.json [--system NAME] [--json]: a sub-command of
// `validate` (cmd_validate.cpp); what gpuplan predicts for everything a gpuplan-bench profile
// measured, before and after calibrating with it (validate/calibration_validation.h).
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "report/validation_report.h"

namespace gpuplan {

void add_validate_calibration(CliCommand& validate, CliContext& ctx) {
  struct Opts {
    ValidateCalibrationRequest request;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CliCommand* cmd = validate.add_subcommand(
      "calibration",
      "A gpuplan-bench profile: predicted vs measured GEMMs, HBM, layers and collectives, before and after "
      "calibration");
  cmd->add_option("file", o->request.file, "Calibration profile written by gpuplan-bench (docs/calibration.md)")
      ->required();
  cmd->add_option("--system", o->request.system, "System the collectives are modelled on (default: the GPU's own)");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->callback([o, &ctx] {
    const ValidateCalibrationAnswer answer = answer_validate_calibration(ctx.catalog(), o->request);
    ctx.print(answer, o->json);
  });
}

}  // namespace gpuplan
