// gpuplan cost | tco | energy: what a run costs in the cloud, owning against renting, and the
// energy and CO2 of a run. Flags (the tables of econ/econ_fields.h) → request →
// econ/*_request.h → report/econ_report.h.
// Every default is a dated catalog figure (data/clouds/, data/econ/); formulas:
// docs/model/economics.md.
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/field_flags.h"
#include "cli/output_flags.h"
#include "econ/cost_ownership.h"
#include "econ/econ_fields.h"
#include "report/cost_report.h"
#include "report/econ_report.h"

namespace gpuplan {
void setup_cost(CliCommand& cmd, CliContext& ctx) {
  auto r = std::make_shared<CostRequest>();
  auto json = std::make_shared<bool>(false);
  add_field_flags(cmd, *r, cost_fields());
  cmd.add_flag("--json", *json, "Print one JSON object");
  // --html, --report-data: the run's cost with owning the same GPUs over time beside it
  // (econ/cost_ownership.h), said in words first.
  auto output = std::make_shared<OutputFlags>();
  add_output_flags(cmd, *output);
  cmd.callback([r, json, output, &ctx] {
    if (output->html.empty() && !output->report_data) {
      ctx.print(answer_cost(ctx.catalog(), *r), *json);
      return;
    }
    OutputFlags flags = *output;
    flags.json = *json;
    present(ctx, answer_cost_ownership(ctx.catalog(), *r), flags);
  });
}

void setup_tco(CliCommand& cmd, CliContext& ctx) {
  auto r = std::make_shared<TcoRequest>();
  auto json = std::make_shared<bool>(false);
  add_field_flags(cmd, *r, tco_fields());
  cmd.add_flag("--json", *json, "Print one JSON object");
  cmd.callback([r, json, &ctx] { ctx.print(answer_tco(ctx.catalog(), *r), *json); });
}

void setup_energy(CliCommand& cmd, CliContext& ctx) {
  auto r = std::make_shared<EnergyRequest>();
  auto json = std::make_shared<bool>(false);
  add_field_flags(cmd, *r, energy_fields());
  cmd.add_flag("--json", *json, "Print one JSON object");
  cmd.callback([r, json, &ctx] { ctx.print(answer_energy(ctx.catalog(), *r), *json); });
}

}  // namespace gpuplan
