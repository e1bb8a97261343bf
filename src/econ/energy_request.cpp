#include "econ/energy_request.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/table.h"
#include "core/units.h"
#include "econ/econ_fields.h"

namespace gpuplan {

EnergyAnswer answer_energy(const Catalog& catalog, const EnergyRequest& o) {
  check_field_numbers(o, energy_fields(), FieldNumberRule::kFiniteNumbers);  // NaN, inf (core/field_spec.h)
  require_count(o.gpus, "--gpus");
  require_positive(o.hours, "--hours");
  require_positive(o.days, "--days");
  if (o.hours.has_value() == o.days.has_value()) throw Error("give the duration as --hours H or --days D");
  require_fraction(o.utilization, "--utilization", false);
  require_positive(o.watts_per_gpu, "--watts-per-gpu");
  require_nonneg(o.kg_co2_per_kwh, "--kg-co2-per-kwh");
  require_nonneg(o.usd_per_kwh, "--usd-per-kwh");
  require_pue(o.pue, "--pue");

  const TcoInputs& inputs = econ_inputs(catalog);
  const Gpu& gpu = catalog.gpu(o.gpu);
  EnergyAnswer r;
  r.gpu = gpu.id;
  r.gpus = o.gpus;
  r.hours = o.hours ? *o.hours : *o.days * 24;
  if (o.watts_per_gpu) {
    r.watts_per_gpu = {*o.watts_per_gpu, "--watts-per-gpu"};
  } else if (const System* sys = tco_system_for(catalog, inputs, gpu); sys && sys->power_w) {
    r.watts_per_gpu = {*sys->power_w / sys->gpus,
                       fmt::format("{} at {} W / {} GPUs (whole node: CPUs, NICs, fans included)", sys->id,
                                   fmt_number(*sys->power_w), sys->gpus)};
  } else if (gpu.tdp_w > 0) {
    r.watts_per_gpu = {gpu.tdp_w, fmt::format("{} TDP (GPU board only, no host)", gpu.id)};
  } else {
    throw Error(fmt::format("--gpu {}: no published power in the catalog; pass --watts-per-gpu W", gpu.id));
  }
  r.utilization = o.utilization ? SourcedFigure{*o.utilization, "--utilization"}
                                : SourcedFigure{1.0, "default: full draw (an upper bound)"};
  r.pue = pick_figure(o.pue, "--pue", inputs.pue, "pue");
  r.kg_co2_per_kwh = pick_figure(o.kg_co2_per_kwh, "--kg-co2-per-kwh", inputs.kg_co2_per_kwh, "carbon");
  r.usd_per_kwh = pick_figure(o.usd_per_kwh, "--usd-per-kwh", inputs.usd_per_kwh, "electricity");
  EnergyInputs in;
  in.gpus = r.gpus;
  in.hours = r.hours;
  in.watts_per_gpu = r.watts_per_gpu.value;
  in.utilization = r.utilization.value;
  in.pue = r.pue.value;
  in.kg_co2_per_kwh = r.kg_co2_per_kwh.value;
  in.usd_per_kwh = r.usd_per_kwh.value;
  r.energy = run_energy(in);
  return r;
}

}  // namespace gpuplan
