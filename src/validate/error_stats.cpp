#include <nlohmann/json.hpp>
#include "validate/error_stats.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

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

}  // namespace gpuplan
