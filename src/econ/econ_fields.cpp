#include "econ/econ_fields.h"

namespace gpuplan {

// In the order `gpuplan cost --help` lists them.
const std::vector<FieldSpec<CostRequest>>& cost_fields() {
  using R = CostRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"gpu", GP_FIELD(R, gpu), "", "", "GPU id or alias", kRequired},
      {"gpu_hours", GP_FIELD(R, gpu_hours), "GPU-hours", "", "The run as GPU-hours (billed per GPU-hour)"},
      {"gpus", GP_FIELD(R, gpus), "GPUs", "", "GPUs of the run (whole instances are billed)"},
      {"days", GP_FIELD(R, days), "days", "", "Wall-clock days"},
      {"hours", GP_FIELD(R, hours), "hours", "", "Wall-clock hours (without --gpus: one instance of each offer)"},
      {"model", GP_FIELD(R, model), "", "",
       "Model (zoo id or config.json): duration from the training evaluator's best plan with --tokens, --gpus",
       kModelId},
      {"tokens", GP_FIELD(R, tokens), "tokens", "", "Training tokens (e.g. 100B)"},
      {"rule_of_thumb", GP_FIELD(R, rule_of_thumb), "", "", "Duration from 6·N·D at --mfu instead of the best plan"},
      {"mfu", GP_FIELD(R, mfu), "", "", "Model-FLOPs utilisation (with --rule-of-thumb)", kShowDefault},
      {"system", GP_FIELD(R, system), "", "", "System the plan runs on (default: the GPU's)"},
      {"seq_len", GP_FIELD(R, seq_len), "tokens", "", "Sequence length of the plan (default: the model's context)"},
      {"global_batch", GP_FIELD(R, global_batch), "sequences", "",
       "Sequences per step of the plan (default: 4M tokens, rounded up to a multiple of --gpus)"},
      {"provider", GP_FIELD(R, provider), "", "", "Only this provider (aws, gcp, lambda, ...)"},
      {"instance", GP_FIELD(R, instance), "", "", "Only this instance type"},
      {"all", GP_FIELD(R, all), "", "", "Include historical (superseded) prices"},
      {"usd_per_hour", GP_FIELD(R, usd_per_hour), "USD per hour", "",
       "Price the run's GPUs at this hourly rate instead of the catalog's"},
      {"usd_per_gpu_hour", GP_FIELD(R, usd_per_gpu_hour), "USD per GPU-hour", "",
       "Price per GPU-hour instead of the catalog's"},
      {"spot_discount", GP_FIELD(R, spot_discount), "", "", "Derive spot rows at on-demand × (1 − F)"},
      {"spot_overhead", GP_FIELD(R, spot_overhead), "", "",
       "Spot checkpoint/restart overhead as a fraction of wall time (replaces the model)"},
      {"interruptions_per_day", GP_FIELD(R, interruptions_per_day), "interruptions per day", "",
       "Spot interruptions per instance per day"},
      {"restart_hours", GP_FIELD(R, restart_hours), "hours", "",
       "Hours to reacquire and restart after an interruption"},
      {"checkpoint_hours", GP_FIELD(R, checkpoint_hours), "hours", "",
       "Checkpoint interval in hours (half is lost per interruption)"},
  };
  return fields;
}

// In the order `gpuplan tco --help` lists them.
const std::vector<FieldSpec<TcoRequest>>& tco_fields() {
  using R = TcoRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"gpu", GP_FIELD(R, gpu), "", "", "GPU id or alias", kRequired},
      {"gpus", GP_FIELD(R, gpus), "GPUs", "", "GPUs to own (rounded up to whole nodes)"},
      {"system", GP_FIELD(R, system), "", "", "Node to buy (default: the catalog's priced node for the GPU)"},
      {"years", GP_FIELD(R, years), "years", "", "Period (default 5)"},
      {"capex", GP_FIELD(R, capex), "USD", "", "Purchase price of the whole cluster, USD"},
      {"power_kw", GP_FIELD(R, power_kw), "kW", "", "IT power of the whole cluster, kW"},
      {"pue", GP_FIELD(R, pue), "", "", "Power usage effectiveness (facility / IT)"},
      {"usd_per_kwh", GP_FIELD(R, usd_per_kwh), "USD per kWh", "", "Electricity price"},
      {"ops_usd_per_year", GP_FIELD(R, ops_usd_per_year), "USD per year", "",
       "Operations for the whole cluster, USD per year"},
      {"cloud_usd_per_hour", GP_FIELD(R, cloud_usd_per_hour), "USD per hour", "",
       "Compare with this cloud rate for the same GPUs"},
      {"provider", GP_FIELD(R, provider), "", "", "Only this provider's offers"},
      {"all", GP_FIELD(R, all), "", "", "Include historical (superseded) prices"},
  };
  return fields;
}

// In the order `gpuplan energy --help` lists them.
const std::vector<FieldSpec<EnergyRequest>>& energy_fields() {
  using R = EnergyRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"gpu", GP_FIELD(R, gpu), "", "", "GPU id or alias", kRequired},
      {"gpus", GP_FIELD(R, gpus), "GPUs", "", "GPUs", kRequired},
      {"hours", GP_FIELD(R, hours), "hours", "", "Wall-clock hours"},
      {"days", GP_FIELD(R, days), "days", "", "Wall-clock days"},
      {"utilization", GP_FIELD(R, utilization), "", "", "Average fraction of full power drawn (default 1)"},
      {"watts_per_gpu", GP_FIELD(R, watts_per_gpu), "W", "",
       "Power per GPU at full load (default: the node's share, or TDP)"},
      {"pue", GP_FIELD(R, pue), "", "", "Power usage effectiveness"},
      {"kg_co2_per_kwh", GP_FIELD(R, kg_co2_per_kwh), "kg CO2 per kWh", "", "Grid carbon intensity"},
      {"usd_per_kwh", GP_FIELD(R, usd_per_kwh), "USD per kWh", "", "Electricity price"},
  };
  return fields;
}

}  // namespace gpuplan
