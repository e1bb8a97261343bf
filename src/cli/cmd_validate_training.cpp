// gpuplan validate training FILE.csv [--json] [--leave-one-source-out]: a sub-command of
// `validate` (cmd_validate.cpp), kept in its own file.
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/csv.h"
#include "validate/train_validation.h"

namespace gpuplan {

void add_validate_training(CliCommand& validate, CliContext& ctx) {
  struct Opts {
    std::string file;
    bool json = false;
    bool loso = false;
    bool fit = false;
  };
  auto o = std::make_shared<Opts>();
  CliCommand* cmd = validate.add_subcommand(
      "training", "Published training runs (training-runs.csv schema): predicted vs measured step time");
  cmd->add_option("file", o->file, "CSV in the schema of shared/data/training-runs.csv")->required();
  cmd->add_flag("--leave-one-source-out", o->loso,
                "Also predict each source with the efficiency factors refit on the other sources");
  cmd->add_flag("--fit", o->fit, "Also refit the efficiency factors on these rows and print them");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->callback([o, &ctx] {
    const CsvTable csv = CsvTable::read(o->file);
    TrainValidationOptions options;
    options.leave_one_source_out = o->loso;
    options.fit = o->fit;
    const TrainValidation v = validate_training(csv, ctx.catalog(), options);
    if (o->json) ctx.print_json(train_validation_json(v));
    else ctx.out << train_validation_text(v);
  });
}

}  // namespace gpuplan
