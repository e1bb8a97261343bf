#include "validate/error_stats.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/table.h"

namespace gpuplan {

ErrorSummary summarize_errors(std::span<const double> errors) {
  ErrorSummary s;
  s.count = static_cast<int>(errors.size());
  if (errors.empty()) return s;
  std::vector<double> abs_pct;
  double signed_sum = 0;
  for (double e : errors) {
    abs_pct.push_back(std::fabs(e) * 100);
    signed_sum += e * 100;
  }
  std::sort(abs_pct.begin(), abs_pct.end());
  const std::size_t n = abs_pct.size();
  s.median_abs_pct = n % 2 ? abs_pct[n / 2] : 0.5 * (abs_pct[n / 2 - 1] + abs_pct[n / 2]);
  double sum = 0;
  int within10 = 0;
  int within25 = 0;
  for (double a : abs_pct) {
    sum += a;
    within10 += a <= 10.0 ? 1 : 0;
    within25 += a <= 25.0 ? 1 : 0;
  }
  s.mean_abs_pct = sum / static_cast<double>(n);
  s.mean_signed_pct = signed_sum / static_cast<double>(n);
  s.within_10_share = within10 / static_cast<double>(n);
  s.within_25_share = within25 / static_cast<double>(n);
  return s;
}

void ErrorGroups::add(const std::string& group, double relative_error) {
  for (auto& [name, errors] : groups_) {
    if (name == group) {
      errors.push_back(relative_error);
      return;
    }
  }
  groups_.push_back({group, {relative_error}});
}

std::vector<std::pair<std::string, ErrorSummary>> ErrorGroups::summaries() const {
  std::vector<std::pair<std::string, ErrorSummary>> out;
  for (const auto& [name, errors] : groups_) out.emplace_back(name, summarize_errors(errors));
  return out;
}

std::string error_groups_text(const std::string& title, const ErrorGroups& groups) {
  using A = TextTable::Align;
  TextTable t({title, "rows", "median |err|", "mean |err|", "bias", "within ±10%", "within ±25%"},
              {A::left, A::right, A::right, A::right, A::right, A::right, A::right});
  for (const auto& [name, s] : groups.summaries()) {
    t.add_row({name, std::to_string(s.count), fmt::format("{:.1f}%", s.median_abs_pct),
               fmt::format("{:.1f}%", s.mean_abs_pct), fmt::format("{:+.1f}%", s.mean_signed_pct),
               fmt::format("{:.0f}%", s.within_10_share * 100), fmt::format("{:.0f}%", s.within_25_share * 100)});
  }
  return t.render();
}

nlohmann::ordered_json error_summary_json(const ErrorSummary& s) {
  nlohmann::ordered_json j;
  j["rows"] = s.count;
  j["median_abs_error_pct"] = s.median_abs_pct;
  j["mean_abs_error_pct"] = s.mean_abs_pct;
  j["mean_signed_error_pct"] = s.mean_signed_pct;
  j["within_10_pct_share"] = s.within_10_share;
  j["within_25_pct_share"] = s.within_25_share;
  return j;
}

nlohmann::ordered_json error_groups_json(const ErrorGroups& groups) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, s] : groups.summaries()) j[name] = error_summary_json(s);
  return j;
}

}  // namespace gpuplan
