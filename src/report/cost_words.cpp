// The cost answer in words, and its owning/renting assumptions with units and sources
// (report/cost_report.h).
#include <fmt/format.h>

#include "report/answer_words.h"
#include "report/cost_report.h"
#include "report/human_units.h"

namespace gpuplan {

namespace {

std::string cost_gpu_words(const CostOwnershipAnswer& a) {
  return a.gpu != nullptr ? short_gpu_name(*a.gpu) : a.cost.gpu;
}

// "lambda gpu_8x_h100_sxm5", "(given)" for a price typed on the line.
std::string offer_words(const CostRow& row) {
  if (row.provider.empty() || row.provider == "(given)") return "the price given";
  return fmt::format("{} {}", row.provider, row.instance);
}

// "Training Llama 3.1 70B on 64 H100 SXM5 80GB for 100 billion tokens takes 17 days",
// "Running 64 H100 SXM5 80GB for 100 h", "26,000 GPU-hours of H100 SXM5 80GB".
std::string cost_run_words(const CostOwnershipAnswer& a) {
  const CostAnswer& c = a.cost;
  const std::string gpu = cost_gpu_words(a);
  if (c.has_model) {
    const std::string model = a.model != nullptr ? a.model->name : c.model.model;
    return fmt::format("Training {} on {} {} for {} tokens takes {}", model, human_count(c.gpus), gpu,
                       human_number(c.model.tokens), human_seconds(c.wall_hours * 3600));
  }
  if (c.gpus > 0 && c.wall_hours > 0) {
    return fmt::format("Running {} {} for {}", human_count(c.gpus), gpu, human_seconds(c.wall_hours * 3600));
  }
  return fmt::format("{} GPU-hours of {}", human_count(c.gpu_hours), gpu);
}

std::string ownership_words(const CostOwnershipAnswer& a) {
  if (!a.tco || !a.over_time) return fmt::format(" Owning was not compared: {}.", a.no_ownership);
  const TcoAnswer& t = *a.tco;
  const CostOverTime& o = *a.over_time;
  const std::string what =
      fmt::format("Owning the {} GPUs{} ({} up front, then {} an hour for power and operations)", human_count(t.gpus),
                  t.system.empty() ? "" : fmt::format(" as {} {} nodes", human_count(t.nodes), t.system),
                  human_usd(o.own_upfront_usd), human_usd(o.own_usd_per_hour));
  if (!o.breaks_even) {
    return fmt::format(" {} never breaks even with renting them on-demand at {} an hour.", what,
                       human_usd(o.rent_usd_per_hour));
  }
  const double years = t.years.value;
  return fmt::format(" {} breaks even with renting them on-demand ({} an hour) after {} months of use around the "
                     "clock; over {} years, owning costs {} and renting around the clock {}.",
                     what, human_usd(o.rent_usd_per_hour), human_number(o.break_even_months), human_number(years),
                     human_usd(t.on_prem.total_usd), human_usd(o.rent_usd_per_hour * years * kHoursPerYear));
}

std::string with_source(const std::string& value, const SourcedFigure& f) {
  return f.from.empty() ? value : fmt::format("{} ({})", value, f.from);
}

}  // namespace

std::string answer_words(const CostOwnershipAnswer& a) {
  const CostAnswer& c = a.cost;
  std::string out = cost_run_words(a);
  if (!a.cheapest_row) return out + ", and no current offer prices it.";
  const CostRow& cheapest = c.rows[*a.cheapest_row];
  // "Training ... takes 17 days and costs", "Running ... costs", "1,000 GPU-hours ... cost".
  out += c.has_model ? " and costs " : c.gpus > 0 && c.wall_hours > 0 ? " costs " : " cost ";
  if (a.on_demand_row) {
    const CostRow& od = c.rows[*a.on_demand_row];
    out += fmt::format("{} on-demand at {} per GPU-hour ({})", human_usd(od.cost.usd), human_usd(od.usd_per_gpu_hour),
                       offer_words(od));
    if (*a.cheapest_row != *a.on_demand_row) {
      out += fmt::format("; {} {} at {} per GPU-hour ({}{})", human_usd(cheapest.cost.usd), cheapest.pricing,
                         human_usd(cheapest.usd_per_gpu_hour), offer_words(cheapest),
                         cheapest.cost.overhead_fraction > 0
                             ? fmt::format(", {} longer for restarts", human_percent(cheapest.cost.overhead_fraction))
                             : "");
    }
  } else {
    out += fmt::format("{} {} at {} per GPU-hour ({})", human_usd(cheapest.cost.usd), cheapest.pricing,
                       human_usd(cheapest.usd_per_gpu_hour), offer_words(cheapest));
  }
  return out + "." + ownership_words(a);
}

std::vector<AssumptionRow> ownership_assumption_rows(const CostOwnershipAnswer& a) {
  std::vector<AssumptionRow> rows;
  if (a.on_demand_row) {
    const CostRow& od = a.cost.rows[*a.on_demand_row];
    rows.push_back({"renting", "on-demand offer compared",
                    fmt::format("{}, {} per GPU-hour{}", offer_words(od), human_usd(od.usd_per_gpu_hour),
                                od.price_date.empty() ? "" : fmt::format(", priced {}", od.price_date))});
  }
  if (!a.tco || !a.over_time) {
    rows.push_back({"owning the GPUs", "not compared", a.no_ownership});
    return rows;
  }
  const TcoAnswer& t = *a.tco;
  const CostOverTime& o = *a.over_time;
  rows.push_back({"renting", "renting the same GPUs", fmt::format("{} an hour for {} GPUs", human_usd(o.rent_usd_per_hour),
                                                                   human_count(t.gpus))});
  const char* g = "owning the GPUs";
  rows.push_back({g, "GPUs owned", t.system.empty() ? human_count(t.gpus)
                                                    : fmt::format("{} in {} {} nodes", human_count(t.gpus),
                                                                  human_count(t.nodes), t.system)});
  rows.push_back({g, "period", with_source(fmt::format("{} years, running around the clock", human_number(t.years.value)), t.years)});
  if (t.server_usd.value > 0) rows.push_back({g, "server price", with_source(human_usd(t.server_usd.value) + " per node", t.server_usd)});
  if (t.switches > 0) {
    rows.push_back({g, "network switches", with_source(fmt::format("{} at {} each", human_count(t.switches),
                                                                   human_usd(t.switch_usd.value)), t.switch_usd)});
  }
  rows.push_back({g, "purchase (up front)", with_source(human_usd(t.capex_usd.value), t.capex_usd)});
  rows.push_back({g, "IT power at full draw", with_source(human_number(t.it_power_kw.value) + " kW", t.it_power_kw)});
  rows.push_back({g, "power usage effectiveness (PUE)", with_source(human_number(t.pue.value), t.pue)});
  rows.push_back({g, "electricity price", with_source(human_usd(t.usd_per_kwh.value) + " per kWh", t.usd_per_kwh)});
  rows.push_back({g, "operations", with_source(human_usd(t.ops_usd_per_year.value) + " per year", t.ops_usd_per_year)});
  rows.push_back({g, "energy over the period", fmt::format("{} kWh, {}", human_number(t.on_prem.energy_kwh),
                                                           human_usd(t.on_prem.energy_usd))});
  rows.push_back({g, "total over the period", fmt::format("{} ({} an hour around the clock)", human_usd(t.on_prem.total_usd),
                                                          human_usd(t.on_prem.usd_per_hour))});
  rows.push_back({"break-even", "owning against renting on-demand",
                  o.breaks_even ? fmt::format("after {} months ({} hours) of use around the clock",
                                              human_number(o.break_even_months), human_count(o.break_even_hours))
                                : "never: running owned GPUs costs as much per hour as renting them"});
  if (!t.rows.empty()) {
    const BreakEvenRow& dearest = t.rows.front();
    const BreakEvenRow& cheapest = t.rows.back();
    rows.push_back({"break-even", "hours of use a day for owning to pay off over the period",
                    fmt::format("{} h against {} {} to {} h against {} {}", human_number(dearest.break_even_hours_per_day),
                                dearest.provider, dearest.instance, human_number(cheapest.break_even_hours_per_day),
                                cheapest.provider, cheapest.instance)});
  }
  for (const std::string& note : t.notes) rows.push_back({g, "note", note});
  return rows;
}

}  // namespace gpuplan
