// gpuplan validate collectives|training|inference|calibration FILE [--json]: flags → one
// library call (validate/validate_request.h) → one writer (report/validation_report.h).
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/progress_printer.h"
#include "report/validation_report.h"

namespace gpuplan {

void add_validate_collectives(CliCommand& validate, CliContext& ctx) {
  struct Opts {
    ValidateCollectivesRequest request;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CliCommand* cmd = validate.add_subcommand(
      "collectives", "Measured collectives (nccl-tests CSV): predicted vs measured time");
  cmd->add_option("file", o->request.file,
                  "CSV in the schema of shared/data/collectives.csv, or nccl-tests output as printed "
                  "(all_reduce_perf, all_gather_perf, ...; several runs may be concatenated)")
      ->required();
  cmd->add_option("--system", o->request.system,
                  "nccl-tests output only: the system it ran on (default: the catalog's system for its GPU)");
  cmd->add_flag("--leave-one-source-out", o->request.leave_one_source_out,
                "Also predict each source with every fitted constant refitted on the other sources (priors where "
                "they cannot see one)");
  cmd->add_flag("--leave-one-gpu-out", o->request.leave_one_gpu_out,
                "Also predict each GPU type's rows with every fitted constant refitted on the other GPUs' rows");
  cmd->add_flag("--fit", o->request.fit,
                "Refit every fitted constant (data/fitted/collectives/nccl.toml) on every row and print them");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->callback([o, &ctx] {
    ProgressPrinter shown(ctx.err, "validate collectives", "fits");
    o->request.progress = shown.sink();
    const ValidateCollectivesAnswer answer = answer_validate_collectives(ctx.catalog(), o->request);
    o->request.progress = nullptr;
    shown.finish();
    ctx.print(answer, o->json);
  });
}

void setup_validate(CliCommand& cmd, CliContext& ctx) {
  cmd.require_subcommand(1);
  add_validate_collectives(cmd, ctx);
  add_validate_training(cmd, ctx);
  add_validate_inference(cmd, ctx);
  add_validate_calibration(cmd, ctx);
}

}  // namespace gpuplan
