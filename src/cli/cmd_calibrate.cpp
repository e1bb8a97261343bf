// gpuplan calibrate training RUNS.csv --out FILE [--json]: fits the GPU-family and framework
// constants a user's own runs can identify (validate/training_calibration.h) and writes them to
// FILE, which `gpuplan train|search --calibration FILE` reads back.
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "report/training_calibration_report.h"

namespace gpuplan {

void setup_calibrate(CliCommand& command, CliContext& ctx) {
  struct Opts {
    CalibrateTrainingRequest request;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  command.require_subcommand(1);
  CliCommand* cmd = command.add_subcommand(
      "training",
      "Fit the GPU-family and framework constants your own training runs can identify; write them for --calibration");
  cmd->add_option("runs", o->request.runs,
                  "RUNS.csv: the columns of ../shared/data/training-runs.csv (one row per run), plus optional "
                  "measured_peak_memory_gib and tied_embeddings (docs/cli.md, calibrate)")
      ->required();
  cmd->add_option("--out", o->request.out, "Calibration file to write (JSON); pass it to train|search --calibration")->required();
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->callback([o, &ctx] {
    const CalibrateTrainingAnswer a = answer_calibrate_training(ctx.catalog(), o->request);
    ctx.print(a, o->json);
  });
}

}  // namespace gpuplan
