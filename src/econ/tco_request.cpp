#include "econ/tco_request.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "core/table.h"
#include "core/units.h"
#include "econ/econ_fields.h"
#include "econ/offers.h"

namespace gpuplan {
namespace {

const ServerPrice* server_price_for(const Catalog& catalog, const TcoInputs& inputs, const System& system) {
  for (const ServerPrice& s : inputs.servers) {
    if (catalog.find_system(s.system) == &system) return &s;
  }
  return nullptr;
}

void check_request(const TcoRequest& o) {
  require_positive(o.years, "--years");
  require_positive(o.cloud_usd_per_hour, "--cloud-usd-per-hour");
  for (auto [v, flag] : {std::pair{o.capex, "--capex"},
                         {o.power_kw, "--power-kw"},
                         {o.usd_per_kwh, "--usd-per-kwh"},
                         {o.ops_usd_per_year, "--ops-usd-per-year"}}) {
    require_nonneg(v, flag);
  }
  require_pue(o.pue, "--pue");
  require_count(o.gpus, "--gpus");
}

// Capex: servers plus, beyond one node, a fat tree of the catalog's switch.
void size_capex(const Catalog& catalog, const TcoInputs& inputs, const Gpu& gpu, const System* system, TcoAnswer& r) {
  const ServerPrice* price = system ? server_price_for(catalog, inputs, *system) : nullptr;
  if (!price) {
    throw Error(fmt::format("no dated server price for {} in the catalog (data/econ/); pass --capex USD",
                            system ? "system '" + system->id + "'" : "GPU '" + gpu.id + "'"));
  }
  r.server_usd = {price->usd.value, from_catalog(price->usd, "server " + price->system)};
  const Switch& sw = catalog.switch_(inputs.network_switch);
  r.switches = r.nodes > 1 ? fat_tree_switches(r.nodes * system->nics, sw.ports) : 0;
  r.switch_usd = {inputs.usd_per_switch.value, from_catalog(inputs.usd_per_switch, "network " + sw.id)};
  const double total = r.nodes * r.server_usd.value + r.switches * r.switch_usd.value;
  r.capex_usd = {total,
                 fmt::format("{} × {} USD server ({}){}", r.nodes, fmt_number(r.server_usd.value), r.server_usd.from,
                             r.switches > 0 ? fmt::format(" + {} × {} USD {} switches", r.switches,
                                                          fmt_number(r.switch_usd.value), sw.id)
                                            : std::string(", no switches (one node)"))};
}

}  // namespace

TcoAnswer answer_tco(const Catalog& catalog, const TcoRequest& o) {
  check_field_numbers(o, tco_fields(), FieldNumberRule::kFiniteNumbers);  // NaN, inf (core/field_spec.h)
  check_request(o);
  check_provider(catalog, o.provider, "--provider");

  const TcoInputs& inputs = econ_inputs(catalog);
  const Gpu& gpu = catalog.gpu(o.gpu);
  const System* system = nullptr;
  if (!o.system.empty()) {
    system = &catalog.system(o.system);
    if (catalog.find_gpu(system->gpu) != &gpu) {
      throw Error(fmt::format("--system {}: holds {}, not {}; pick a system with {} or drop --system", system->id,
                              system->gpu, gpu.id, gpu.id));
    }
  } else {
    system = tco_system_for(catalog, inputs, gpu);
  }

  TcoAnswer r;
  r.gpu = gpu.id;
  r.system = system ? system->id : "";
  if (system) {
    r.gpus = o.gpus.value_or(system->gpus);
    r.nodes = (r.gpus + system->gpus - 1) / system->gpus;
    r.gpus = r.nodes * system->gpus;  // whole nodes are bought
  } else {
    if (!o.gpus)
      throw Error(fmt::format("no catalog system holds {}; pass --gpus N (and --capex, --power-kw)", gpu.id));
    r.gpus = *o.gpus;
    r.nodes = 1;
  }
  r.years = o.years ? SourcedFigure{*o.years, "--years"} : SourcedFigure{5, "default, as Lenovo LP2225"};

  if (o.capex) {
    r.capex_usd = {*o.capex, "--capex"};
  } else {
    size_capex(catalog, inputs, gpu, system, r);
  }
  if (o.power_kw) {
    r.it_power_kw = {*o.power_kw, "--power-kw"};
  } else {
    if (!system || !system->power_w) {
      throw Error(fmt::format("no sourced node power for {} in the catalog; pass --power-kw KW",
                              system ? "system '" + system->id + "'" : "GPU '" + gpu.id + "'"));
    }
    r.it_power_kw = {r.nodes * *system->power_w / 1000,
                     fmt::format("{} × {} at {} W (catalog, maximum system power)", r.nodes, system->id,
                                 fmt_number(*system->power_w))};
  }
  r.pue = pick_figure(o.pue, "--pue", inputs.pue, "pue");
  r.usd_per_kwh = pick_figure(o.usd_per_kwh, "--usd-per-kwh", inputs.usd_per_kwh, "electricity");
  if (o.ops_usd_per_year) {
    r.ops_usd_per_year = {*o.ops_usd_per_year, "--ops-usd-per-year"};
  } else {
    r.ops_usd_per_year = {r.nodes * inputs.ops_usd_per_node_year.value,
                          from_catalog(inputs.ops_usd_per_node_year, "operations")};
  }
  OnPremInputs in;
  in.capex_usd = r.capex_usd.value;
  in.it_power_kw = r.it_power_kw.value;
  in.pue = r.pue.value;
  in.usd_per_kwh = r.usd_per_kwh.value;
  in.ops_usd_per_year = r.ops_usd_per_year.value;
  in.years = r.years.value;
  r.on_prem = on_prem_tco(in);

  auto add_row = [&](BreakEvenRow row) {
    row.cloud_usd_24x7 = row.usd_per_hour * kHoursPerYear * r.years.value;
    row.break_even_hours_per_day = break_even_hours_per_day(r.on_prem.total_usd, row.usd_per_hour, r.years.value);
    r.rows.push_back(row);
  };
  if (o.cloud_usd_per_hour) {
    add_row({"(given)", "-", "on-demand", "", false, *o.cloud_usd_per_hour, 0, 0});
  } else {
    OfferFilter filter;
    filter.gpu = &gpu;
    if (!o.provider.empty()) filter.providers = {o.provider};
    filter.include_historical = o.all;
    for (const CloudOffer* offer : select_offers(catalog, filter)) {
      if (offer->pricing != "on-demand" && offer->pricing.rfind("reserved", 0) != 0) continue;
      add_row({offer->provider, offer->instance, offer->pricing, offer->price_date, offer->historical,
               offer->usd_per_gpu_hour * r.gpus, 0, 0});
    }
    std::stable_sort(r.rows.begin(), r.rows.end(),
                     [](const BreakEvenRow& a, const BreakEvenRow& b) { return a.usd_per_hour > b.usd_per_hour; });
    if (r.rows.empty()) r.notes.push_back("no on-demand or reserved offer for this GPU; pass --cloud-usd-per-hour");
  }
  r.notes.push_back(
      "on-prem is a fixed cost (bought, powered and run 24/7 for the period, as Lenovo LP2225 counts it); "
      "the cloud is billed only for the hours used. Below the break-even hours per day, renting is cheaper.");
  if (!o.ops_usd_per_year && inputs.ops_usd_per_node_year.value == 0) {
    r.notes.push_back(
        "operations (staff, support, space) not counted by default, as in Lenovo LP2225: the on-prem "
        "total is a lower bound; pass --ops-usd-per-year");
  }
  return r;
}

}  // namespace gpuplan
