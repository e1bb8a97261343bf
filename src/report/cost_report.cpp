#include "report/cost_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/econ_report.h"

namespace gpuplan {

nlohmann::ordered_json to_json(const CostOverTime& o) {
  nlohmann::ordered_json j;
  j["own_upfront_usd"] = o.own_upfront_usd;
  j["own_usd_per_hour"] = o.own_usd_per_hour;
  j["rent_usd_per_hour"] = o.rent_usd_per_hour;
  j["breaks_even"] = o.breaks_even;
  j["break_even_hours"] = o.break_even_hours;
  j["break_even_months"] = o.break_even_months;
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const CostOverTimePoint& p : o.points) {
    points.push_back({{"months", p.months}, {"own_usd", p.own_usd}, {"rent_usd", p.rent_usd}});
  }
  j["points"] = std::move(points);
  return j;
}

nlohmann::ordered_json to_json(const CostOwnershipAnswer& a) { return to_json(a.cost); }
std::string to_text(const CostOwnershipAnswer& a) { return to_text(a.cost); }

nlohmann::ordered_json report_data(const CostOwnershipAnswer& a) {
  nlohmann::ordered_json j;
  j["kind"] = "cost";
  j["headline"] = answer_words(a);
  j["answer"] = to_json(a.cost);
  nlohmann::ordered_json rows = to_json(assumption_rows(j["answer"]));
  for (const nlohmann::ordered_json& row : to_json(ownership_assumption_rows(a))) rows.push_back(row);
  j["assumptions"] = std::move(rows);
  j["on_demand_row"] = a.on_demand_row ? nlohmann::ordered_json(*a.on_demand_row) : nlohmann::ordered_json(nullptr);
  j["cheapest_row"] = a.cheapest_row ? nlohmann::ordered_json(*a.cheapest_row) : nlohmann::ordered_json(nullptr);
  if (a.tco && a.over_time) {
    j["ownership"] = {{"tco", to_json(*a.tco)}, {"over_time", to_json(*a.over_time)}};
  } else {
    j["ownership"] = nullptr;
    j["no_ownership"] = a.no_ownership;
  }
  return j;
}

std::string report_title(const CostOwnershipAnswer& a) {
  const CostAnswer& c = a.cost;
  if (c.has_model) return fmt::format("{} on {} × {}: what the run costs, renting or owning", c.model.model, c.gpus, c.gpu);
  if (c.gpus > 0) return fmt::format("{} × {}: what the run costs, renting or owning", c.gpus, c.gpu);
  return fmt::format("{}: what the run costs", c.gpu);
}

}  // namespace gpuplan
