// Prediction-error statistics shared by the validators (`gpuplan validate ...`): median and mean
// absolute percentage error, the share of rows within ±10% and ±25%, per group of rows.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gpuplan {

struct ErrorSummary {
  int count = 0;
  double median_abs_pct = 0;
  double mean_abs_pct = 0;
  double mean_signed_pct = 0;  // bias: > 0 the model over-predicts
  double within_10_share = 0;  // share of rows with |error| <= 10%
  double within_25_share = 0;
};

// Errors are relative: (predicted - measured) / measured.
inline double relative_error(double predicted, double measured) { return (predicted - measured) / measured; }
ErrorSummary summarize_errors(std::span<const double> relative_errors);

// Rows collected under group names, kept in the order groups first appear.
class ErrorGroups {
 public:
  void add(const std::string& group, double relative_error);
  std::vector<std::pair<std::string, ErrorSummary>> summaries() const;
  bool empty() const { return groups_.empty(); }

 private:
  std::vector<std::pair<std::string, std::vector<double>>> groups_;
};

}  // namespace gpuplan
