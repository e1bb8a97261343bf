// gpuplan validate inference FILE.csv [--json]: a sub-command of `validate` (cmd_validate.cpp).
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/csv.h"
#include "validate/infer_validation.h"

namespace gpuplan {

void add_validate_inference(CliCommand& validate, CliContext& ctx) {
  struct Opts {
    std::string file;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CliCommand* cmd = validate.add_subcommand(
      "inference", "Published serving runs (inference-runs.csv schema): predicted vs measured tokens/s, TTFT, TPOT");
  cmd->add_option("file", o->file, "CSV in the schema of shared/data/inference-runs.csv")->required();
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->callback([o, &ctx] {
    const CsvTable csv = CsvTable::read(o->file);
    const InferValidation v = validate_inference(csv, ctx.catalog());
    if (o->json) ctx.print_json(infer_validation_json(v));
    else ctx.out << infer_validation_text(v);
  });
}

}  // namespace gpuplan
