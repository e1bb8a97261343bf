// gpuplan validate inference FILE.csv [--json] [--leave-one-gpu-out | --leave-one-source-out] [--fit] [--simulate]: a sub-command of `validate` (cmd_validate.cpp).
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/progress_printer.h"
#include "report/validation_report.h"

namespace gpuplan {

void add_validate_inference(CliCommand& validate, CliContext& ctx) {
  struct Opts {
    ValidateInferenceRequest request;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CliCommand* cmd = validate.add_subcommand(
      "inference", "Published serving runs (inference-runs.csv schema): predicted vs measured tokens/s, TTFT, TPOT");
  cmd->add_option("file", o->request.file, "CSV in the schema of shared/data/inference-runs.csv")->required();
  cmd->add_flag("--leave-one-gpu-out", o->request.leave_one_gpu_out,
                "Predict each GPU's rows with the serving constants refit on the other GPUs' rows");
  cmd->add_flag("--leave-one-source-out", o->request.leave_one_source_out,
                "Predict each source's rows with the serving constants refit on the other sources' rows");
  cmd->add_flag("--fit", o->request.fit, "Also fit the serving constants on every row and print them");
  cmd->add_flag("--simulate", o->request.simulate,
                "Predict closed-loop TTFT/TPOT rows by simulating the engine's scheduler (docs/model/simulation.md) "
                "instead of the closed-form rules");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->callback([o, &ctx] {
    ProgressPrinter shown(ctx.err, "validate inference", "fits");
    o->request.progress = shown.sink();
    const ValidateInferenceAnswer answer = answer_validate_inference(ctx.catalog(), o->request);
    o->request.progress = nullptr;
    shown.finish();
    ctx.print(answer, o->json);
  });
}

}  // namespace gpuplan
