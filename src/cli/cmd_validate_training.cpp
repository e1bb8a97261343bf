// gpuplan validate training FILE.csv [--json] [--leave-one-source-out] [--time-split DATE] [--fit]: a sub-command
// of `validate` (cmd_validate.cpp), kept in its own file.
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/progress_printer.h"
#include "report/validation_report.h"

namespace gpuplan {

void add_validate_training(CliCommand& validate, CliContext& ctx) {
  struct Opts {
    ValidateTrainingRequest request;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CliCommand* cmd = validate.add_subcommand(
      "training", "Published training runs (training-runs.csv schema): predicted vs measured step time");
  cmd->add_option("file", o->request.file, "CSV in the schema of shared/data/training-runs.csv")->required();
  cmd->add_flag("--leave-one-source-out", o->request.leave_one_source_out,
                "Also predict each source with the efficiency factors refit on the other sources");
  cmd->add_option("--time-split", o->request.time_split,
                  "Also fit on the sources published before this date (YYYY-MM-DD; data/validation/) and predict "
                  "the rest");
  cmd->add_flag("--fit", o->request.fit, "Also refit the efficiency factors on these rows and print them");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->callback([o, &ctx] {
    ProgressPrinter shown(ctx.err, "validate training", "fits");
    o->request.progress = shown.sink();
    const ValidateTrainingAnswer answer = answer_validate_training(ctx.catalog(), o->request);
    o->request.progress = nullptr;
    shown.finish();
    ctx.print(answer, o->json);
  });
}

}  // namespace gpuplan
