// gpuplan validate collectives FILE.csv [--json]: predicted vs measured, per row and grouped.
// `validate` is a command with one sub-command per validator (training and inference to come).
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/csv.h"
#include "cost/collective.h"
#include "validate/collective_validation.h"

namespace gpuplan {
namespace {

void setup_validate_collectives(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    std::string file;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd.add_option("file", o->file, "CSV in the schema of shared/data/collectives.csv (nccl-tests results)")->required();
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, &ctx] {
    const Catalog& catalog = ctx.catalog();
    const CsvTable csv = CsvTable::read(o->file);
    const CollectiveValidation v = validate_collectives(csv, catalog, default_collective_params(catalog));
    if (o->json) ctx.print_json(collective_validation_json(v));
    else ctx.out << collective_validation_text(v);
  });
}

struct ValidatorRow {
  const char* name;
  const char* help;
  CommandSetup setup;
};

constexpr ValidatorRow kValidators[] = {
    {"collectives", "Measured collectives (nccl-tests CSV): predicted vs measured time", setup_validate_collectives},
};

}  // namespace

void setup_validate(CliCommand& cmd, CliContext& ctx) {
  cmd.require_subcommand(1);
  for (const ValidatorRow& row : kValidators) row.setup(*cmd.add_subcommand(row.name, row.help), ctx);
  add_validate_training(cmd, ctx);
  add_validate_inference(cmd, ctx);
  add_validate_calibration(cmd, ctx);
}

}  // namespace gpuplan
