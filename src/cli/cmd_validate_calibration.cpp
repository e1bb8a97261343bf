// gpuplan validate calibration PROFILE.json [--system NAME] [--json]: a sub-command of
// `validate` (cmd_validate.cpp); what gpuplan predicts for everything a gpuplan-bench profile
// measured, before and after calibrating with it (report/calibration_validation.h).
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "calibration/profile.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "validate/calibration_validation.h"

namespace gpuplan {

void add_validate_calibration(CliCommand& validate, CliContext& ctx) {
  struct Opts {
    std::string file;
    std::string system;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CliCommand* cmd = validate.add_subcommand(
      "calibration",
      "A gpuplan-bench profile: predicted vs measured GEMMs, HBM, layers and collectives, before and after "
      "calibration");
  cmd->add_option("file", o->file, "Calibration profile written by gpuplan-bench (docs/calibration.md)")->required();
  cmd->add_option("--system", o->system, "System the collectives are modelled on (default: the GPU's own)");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->callback([o, &ctx] {
    const CalibrationValidation v = validate_calibration(load_calibration(o->file), ctx.catalog(), o->system);
    if (o->json)
      ctx.print_json(calibration_validation_json(v));
    else
      ctx.out << calibration_validation_text(v);
  });
}

}  // namespace gpuplan
