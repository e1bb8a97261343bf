// gpuplan cost | tco | energy: what a run costs in the cloud, owning against renting, and the
// energy and CO2 of a run. Flags → request → econ/*_request.h → report/econ_report.h.
// Every default is a dated catalog figure (data/clouds/, data/econ/); formulas:
// docs/model/economics.md.
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/output_flags.h"
#include "econ/cost_ownership.h"
#include "econ/cost_request.h"
#include "econ/energy_request.h"
#include "econ/tco_request.h"
#include "report/cost_report.h"
#include "report/econ_report.h"

namespace gpuplan {
void setup_cost(CliCommand& cmd, CliContext& ctx) {
  auto r = std::make_shared<CostRequest>();
  auto json = std::make_shared<bool>(false);
  cmd.add_option("--gpu", r->gpu, "GPU id or alias")->required();
  cmd.add_option("--gpu-hours", r->gpu_hours, "The run as GPU-hours (billed per GPU-hour)");
  cmd.add_option("--gpus", r->gpus, "GPUs of the run (whole instances are billed)");
  cmd.add_option("--days", r->days, "Wall-clock days");
  cmd.add_option("--hours", r->hours, "Wall-clock hours (without --gpus: one instance of each offer)");
  cmd.add_option("--model", r->model,
                 "Model (zoo id or config.json): duration from the training evaluator's best plan with --tokens, --gpus");
  cmd.add_option("--tokens", r->tokens, "Training tokens (e.g. 100B)");
  cmd.add_flag("--rule-of-thumb", r->rule_of_thumb, "Duration from 6·N·D at --mfu instead of the best plan");
  cmd.add_option("--mfu", r->mfu, "Model-FLOPs utilisation (with --rule-of-thumb)")->capture_default_str();
  cmd.add_option("--system", r->system, "System the plan runs on (default: the GPU's)");
  cmd.add_option("--seq-len", r->seq_len, "Sequence length of the plan (default: the model's context)");
  cmd.add_option("--global-batch", r->global_batch,
                 "Sequences per step of the plan (default: 4M tokens, rounded up to a multiple of --gpus)");
  cmd.add_option("--provider", r->provider, "Only this provider (aws, gcp, lambda, ...)");
  cmd.add_option("--instance", r->instance, "Only this instance type");
  cmd.add_flag("--all", r->all, "Include historical (superseded) prices");
  cmd.add_option("--usd-per-hour", r->usd_per_hour,
                 "Price the run's GPUs at this hourly rate instead of the catalog's");
  cmd.add_option("--usd-per-gpu-hour", r->usd_per_gpu_hour, "Price per GPU-hour instead of the catalog's");
  cmd.add_option("--spot-discount", r->spot_discount, "Derive spot rows at on-demand × (1 − F)");
  cmd.add_option("--spot-overhead", r->spot_overhead,
                 "Spot checkpoint/restart overhead as a fraction of wall time (replaces the model)");
  cmd.add_option("--interruptions-per-day", r->interruptions_per_day, "Spot interruptions per instance per day");
  cmd.add_option("--restart-hours", r->restart_hours, "Hours to reacquire and restart after an interruption");
  cmd.add_option("--checkpoint-hours", r->checkpoint_hours,
                 "Checkpoint interval in hours (half is lost per interruption)");
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
  cmd.add_option("--gpu", r->gpu, "GPU id or alias")->required();
  cmd.add_option("--gpus", r->gpus, "GPUs to own (rounded up to whole nodes)");
  cmd.add_option("--system", r->system, "Node to buy (default: the catalog's priced node for the GPU)");
  cmd.add_option("--years", r->years, "Period (default 5)");
  cmd.add_option("--capex", r->capex, "Purchase price of the whole cluster, USD");
  cmd.add_option("--power-kw", r->power_kw, "IT power of the whole cluster, kW");
  cmd.add_option("--pue", r->pue, "Power usage effectiveness (facility / IT)");
  cmd.add_option("--usd-per-kwh", r->usd_per_kwh, "Electricity price");
  cmd.add_option("--ops-usd-per-year", r->ops_usd_per_year, "Operations for the whole cluster, USD per year");
  cmd.add_option("--cloud-usd-per-hour", r->cloud_usd_per_hour, "Compare with this cloud rate for the same GPUs");
  cmd.add_option("--provider", r->provider, "Only this provider's offers");
  cmd.add_flag("--all", r->all, "Include historical (superseded) prices");
  cmd.add_flag("--json", *json, "Print one JSON object");
  cmd.callback([r, json, &ctx] { ctx.print(answer_tco(ctx.catalog(), *r), *json); });
}

void setup_energy(CliCommand& cmd, CliContext& ctx) {
  auto r = std::make_shared<EnergyRequest>();
  auto json = std::make_shared<bool>(false);
  cmd.add_option("--gpu", r->gpu, "GPU id or alias")->required();
  cmd.add_option("--gpus", r->gpus, "GPUs")->required();
  cmd.add_option("--hours", r->hours, "Wall-clock hours");
  cmd.add_option("--days", r->days, "Wall-clock days");
  cmd.add_option("--utilization", r->utilization, "Average fraction of full power drawn (default 1)");
  cmd.add_option("--watts-per-gpu", r->watts_per_gpu, "Power per GPU at full load (default: the node's share, or TDP)");
  cmd.add_option("--pue", r->pue, "Power usage effectiveness");
  cmd.add_option("--kg-co2-per-kwh", r->kg_co2_per_kwh, "Grid carbon intensity");
  cmd.add_option("--usd-per-kwh", r->usd_per_kwh, "Electricity price");
  cmd.add_flag("--json", *json, "Print one JSON object");
  cmd.callback([r, json, &ctx] { ctx.print(answer_energy(ctx.catalog(), *r), *json); });
}

}  // namespace gpuplan
