#include "report/econ_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/units.h"
#include "core/table.h"
#include "report/default_system_report.h"
#include "report/train_report.h"

namespace gpuplan {
namespace {

using Align = TextTable::Align;

std::string usd(double v) { return fmt_number(v, v < 100 ? 2 : 0); }

std::string date_of(const std::string& date, bool estimated) {
  if (date.empty()) return "(given)";
  return (estimated ? "~" : "") + date;
}

std::string hours_and_days(double h) {
  return fmt::format("{} h ({:.1f} days)", fmt_number(h, h < 100 ? 1 : 0), h / 24);
}

nlohmann::ordered_json sourced(const SourcedFigure& f) { return {{"value", f.value}, {"from", f.from}}; }

}  // namespace

std::string to_text(const CostAnswer& r) {
  std::string s;
  if (r.has_model) {
    const ModelDuration& m = r.model;
    s += fmt::format("Model {}: 6 × {:.3g} params × {:.3g} tokens = {:.3g} FLOPs (6·N·D, attention left out)\n",
                     m.model, m.params, m.tokens, m.flops);
    s += fmt::format("Peak: {} × {} = {} dense BF16\n", r.gpus, format_si(m.peak_flops_per_s, "FLOP/s"),
                     format_si(m.peak_flops_per_s * r.gpus, "FLOP/s"));
    if (m.search) {
      const SearchAnswer& a = *m.search;
      const Candidate& best = a.result.top.front();
      s += fmt::format("Best plan (the training evaluator's search, as `gpuplan search` with --global-batch {}):\n  {}\n",
                       m.global_batch, plan_summary(best.plan, *a.setup.ctx.model));
      s += default_system_text(a.setup.ctx.system, *a.setup.ctx.gpu, a.setup.system_defaulted);
      s += fmt::format("  step {} · {} tokens/s · MFU {:.1f}%\n", format_seconds(m.step_time_s),
                       fmt_number(m.tokens_per_s), m.mfu * 100);
      s += fmt::format("Duration: {} (tokens / the plan's throughput); 6·N·D gives {} at 100% MFU, {} at 50%\n",
                       hours_and_days(m.hours_at_mfu), hours_and_days(m.hours_at_full_mfu),
                       hours_and_days(m.hours_at_half_mfu));
    } else {
      s += fmt::format("Duration: {} at 100% MFU (the physical bound); {} at {:.0f}% MFU; {} at 50% MFU\n",
                       hours_and_days(m.hours_at_full_mfu), hours_and_days(m.hours_at_mfu), m.mfu * 100,
                       hours_and_days(m.hours_at_half_mfu));
      s += fmt::format("Priced at {:.0f}% MFU (--rule-of-thumb: 6·N·D, no plan).\n", m.mfu * 100);
    }
  }
  if (r.wall_hours > 0 && r.gpus > 0) {
    s += fmt::format("Run: {} × {} for {} = {} GPU-hours\n", r.gpus, r.gpu, hours_and_days(r.wall_hours),
                     fmt_number(r.gpu_hours));
  } else if (r.wall_hours > 0) {
    s += fmt::format("Run: one instance of each offer ({}) for {}\n", r.gpu, hours_and_days(r.wall_hours));
  } else {
    s += fmt::format("Run: {} GPU-hours of {}\n", fmt_number(r.gpu_hours), r.gpu);
  }
  if (r.spot_overhead_fixed) {
    s += fmt::format("Spot rows: +{:.1f}% wall time for checkpoint/restart ({})\n", r.spot_overhead * 100, r.spot_from);
  } else {
    s += fmt::format(
        "Spot rows: {:.2g} interruptions per instance per day, {:.2g} h restart, checkpoint every {:.2g} h "
        "({})\n",
        r.spot.interruptions_per_instance_per_day, r.spot.restart_h, r.spot.checkpoint_interval_h, r.spot_from);
  }
  s += "\n";
  TextTable t({"provider", "instance", "pricing", "USD/GPU-h", "price date", "instances", "wall h", "GPU-h billed",
               "overhead", "cost USD"},
              {Align::left, Align::left, Align::left, Align::right, Align::left, Align::right, Align::right,
               Align::right, Align::right, Align::right});
  for (const CostRow& row : r.rows) {
    t.add_row({row.provider, row.instance, row.pricing + (row.historical ? " (historical)" : ""),
               fmt_number(row.usd_per_gpu_hour, 3), date_of(row.price_date, row.price_date_estimated),
               row.cost.instances > 0 ? std::to_string(row.cost.instances) : "-",
               row.cost.wall_hours > 0 ? fmt_number(row.cost.wall_hours, 1) : "-",
               fmt_number(row.cost.billed_gpu_hours), fmt::format("{:.1f}%", row.cost.overhead_fraction * 100),
               fmt_number(row.cost.usd)});
  }
  s += t.render();
  for (const auto& note : r.notes) s += "Note: " + note + "\n";
  return s;
}

nlohmann::ordered_json to_json(const CostAnswer& r) {
  nlohmann::ordered_json j;
  j["gpu"] = r.gpu;
  j["gpus"] = r.gpus;
  j["wall_hours"] = r.wall_hours;
  j["gpu_hours"] = r.gpu_hours;
  if (r.has_model) {
    const ModelDuration& m = r.model;
    j["model"] = {{"id", m.model},
                  {"params", m.params},
                  {"tokens", m.tokens},
                  {"flops", m.flops},
                  {"peak_flops_per_s_per_gpu", m.peak_flops_per_s},
                  {"mfu", m.mfu},
                  {"hours_at_full_mfu", m.hours_at_full_mfu},
                  {"hours_at_mfu", m.hours_at_mfu},
                  {"hours_at_half_mfu", m.hours_at_half_mfu},
                  {"method", m.method}};
    if (m.search) {
      const SearchAnswer& a = *m.search;
      const Candidate& best = a.result.top.front();
      j["model"]["plan"] = plan_json(best.plan, *a.setup.ctx.model,
                                     a.setup.ctx.framework ? std::string_view(a.setup.ctx.framework->id)
                                                           : std::string_view());
      j["model"]["global_batch"] = m.global_batch;
      j["model"]["seq_len"] = m.seq_len;
      j["model"]["step_time_s"] = m.step_time_s;
      j["model"]["tokens_per_s"] = m.tokens_per_s;
      j["model"]["system"] = a.setup.ctx.system ? a.setup.ctx.system->id : "";
      add_default_system_json(j["model"], a.setup.ctx.system, *a.setup.ctx.gpu, a.setup.system_defaulted);
    }
  }
  j["spot"] = {{"interruptions_per_instance_per_day", r.spot.interruptions_per_instance_per_day},
               {"restart_hours", r.spot.restart_h},
               {"checkpoint_interval_hours", r.spot.checkpoint_interval_h},
               {"overhead_fixed", r.spot_overhead_fixed},
               {"overhead_fraction", r.spot_overhead},
               {"from", r.spot_from}};
  auto rows = nlohmann::ordered_json::array();
  for (const CostRow& row : r.rows) {
    rows.push_back({{"provider", row.provider},
                    {"instance", row.instance},
                    {"pricing", row.pricing},
                    {"usd_per_gpu_hour", row.usd_per_gpu_hour},
                    {"gpus_per_instance", row.gpus_per_instance},
                    {"price_date", row.price_date},
                    {"price_date_estimated", row.price_date_estimated},
                    {"historical", row.historical},
                    {"instances", row.cost.instances},
                    {"wall_hours", row.cost.wall_hours},
                    {"billed_gpu_hours", row.cost.billed_gpu_hours},
                    {"overhead_fraction", row.cost.overhead_fraction},
                    {"usd", row.cost.usd},
                    {"source", row.source}});
  }
  j["rows"] = rows;
  j["notes"] = r.notes;
  return j;
}

std::string to_text(const TcoAnswer& r) {
  std::string s;
  const double hours = r.years.value * kHoursPerYear;
  s += fmt::format("On-prem: {} node{} ({}{} GPUs of {}) for {:g} years, running 24/7 ({})\n", r.nodes,
                   r.nodes == 1 ? "" : "s", r.system.empty() ? "" : r.system + ", ", r.gpus, r.gpu, r.years.value,
                   r.years.from);
  TextTable t({"item", "USD", "how"}, {Align::left, Align::right, Align::left});
  t.add_row({"capex", fmt_number(r.capex_usd.value), r.capex_usd.from});
  t.add_row({"energy", fmt_number(r.on_prem.energy_usd),
             fmt::format("{:.3g} kW × PUE {:.3g} × {:.3f} USD/kWh × {} h = {} kWh", r.it_power_kw.value, r.pue.value,
                         r.usd_per_kwh.value, fmt_number(hours), fmt_number(r.on_prem.energy_kwh))});
  t.add_row({"operations", fmt_number(r.on_prem.ops_usd),
             fmt::format("{} USD/year ({})", fmt_number(r.ops_usd_per_year.value), r.ops_usd_per_year.from)});
  t.add_row({"total", fmt_number(r.on_prem.total_usd),
             fmt::format("{} USD/h around the clock", usd(r.on_prem.usd_per_hour))});
  s += t.render();
  s += fmt::format("Power: {}\nPUE: {}\nElectricity: {}\n", r.it_power_kw.from, r.pue.from, r.usd_per_kwh.from);
  s += fmt::format("\nBreak-even against renting the same {} GPUs (hours of use per day over {:g} years):\n", r.gpus,
                   r.years.value);
  TextTable b({"provider", "instance", "pricing", "USD/h", "price date", "cloud 24/7 USD", "break-even h/day"},
              {Align::left, Align::left, Align::left, Align::right, Align::left, Align::right, Align::right});
  for (const BreakEvenRow& row : r.rows) {
    const std::string be = row.break_even_hours_per_day > 24 ? "never (cloud cheaper 24/7)"
                                                             : fmt::format("{:.1f}", row.break_even_hours_per_day);
    b.add_row({row.provider, row.instance, row.pricing + (row.historical ? " (historical)" : ""), usd(row.usd_per_hour),
               row.price_date.empty() ? "(given)" : row.price_date, fmt_number(row.cloud_usd_24x7), be});
  }
  s += b.render();
  for (const auto& note : r.notes) s += "Note: " + note + "\n";
  return s;
}

nlohmann::ordered_json to_json(const TcoAnswer& r) {
  nlohmann::ordered_json j;
  j["gpu"] = r.gpu;
  j["system"] = r.system;
  j["gpus"] = r.gpus;
  j["nodes"] = r.nodes;
  j["switches"] = r.switches;
  j["years"] = sourced(r.years);
  j["server_usd"] = sourced(r.server_usd);
  j["switch_usd"] = sourced(r.switch_usd);
  j["capex_usd"] = sourced(r.capex_usd);
  j["it_power_kw"] = sourced(r.it_power_kw);
  j["pue"] = sourced(r.pue);
  j["usd_per_kwh"] = sourced(r.usd_per_kwh);
  j["ops_usd_per_year"] = sourced(r.ops_usd_per_year);
  j["on_prem"] = {{"energy_kwh", r.on_prem.energy_kwh},
                  {"energy_usd", r.on_prem.energy_usd},
                  {"ops_usd", r.on_prem.ops_usd},
                  {"total_usd", r.on_prem.total_usd},
                  {"usd_per_hour", r.on_prem.usd_per_hour}};
  auto rows = nlohmann::ordered_json::array();
  for (const BreakEvenRow& row : r.rows) {
    rows.push_back({{"provider", row.provider},
                    {"instance", row.instance},
                    {"pricing", row.pricing},
                    {"price_date", row.price_date},
                    {"historical", row.historical},
                    {"usd_per_hour", row.usd_per_hour},
                    {"cloud_usd_24x7", row.cloud_usd_24x7},
                    {"break_even_hours_per_day", row.break_even_hours_per_day}});
  }
  j["break_even"] = rows;
  j["notes"] = r.notes;
  return j;
}

std::string to_text(const EnergyAnswer& r) {
  std::string s;
  s += fmt::format("{} × {} for {}\n", r.gpus, r.gpu, hours_and_days(r.hours));
  TextTable t({"figure", "value", "from"}, {Align::left, Align::right, Align::left});
  t.add_row({"power per GPU (W)", fmt_number(r.watts_per_gpu.value), r.watts_per_gpu.from});
  t.add_row({"utilisation", fmt_number(r.utilization.value, 2), r.utilization.from});
  t.add_row({"PUE", fmt_number(r.pue.value, 2), r.pue.from});
  t.add_row({"kg CO2 per kWh", fmt_number(r.kg_co2_per_kwh.value, 3), r.kg_co2_per_kwh.from});
  t.add_row({"USD per kWh", fmt_number(r.usd_per_kwh.value, 3), r.usd_per_kwh.from});
  s += t.render();
  s += fmt::format("\nIT energy:       {} kWh\n", fmt_number(r.energy.it_kwh));
  s += fmt::format("Facility energy: {} kWh (average {:.3g} kW)\n", fmt_number(r.energy.facility_kwh),
                   r.energy.avg_facility_kw);
  s += fmt::format("CO2:             {} kg ({:.3g} t)\n", fmt_number(r.energy.kg_co2), r.energy.kg_co2 / 1000);
  s += fmt::format("Electricity:     {} USD\n", usd(r.energy.usd));
  return s;
}

nlohmann::ordered_json to_json(const EnergyAnswer& r) {
  nlohmann::ordered_json j;
  j["gpu"] = r.gpu;
  j["gpus"] = r.gpus;
  j["hours"] = r.hours;
  j["watts_per_gpu"] = sourced(r.watts_per_gpu);
  j["utilization"] = sourced(r.utilization);
  j["pue"] = sourced(r.pue);
  j["kg_co2_per_kwh"] = sourced(r.kg_co2_per_kwh);
  j["usd_per_kwh"] = sourced(r.usd_per_kwh);
  j["it_kwh"] = r.energy.it_kwh;
  j["facility_kwh"] = r.energy.facility_kwh;
  j["kg_co2"] = r.energy.kg_co2;
  j["usd"] = r.energy.usd;
  return j;
}

}  // namespace gpuplan
