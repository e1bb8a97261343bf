// Plain-text tables for the terminal: a header, right-aligned numbers, left-aligned text.
#pragma once

#include <string>
#include <vector>

namespace gpuplan {

class TextTable {
 public:
  enum class Align { left, right };

  explicit TextTable(std::vector<std::string> header, std::vector<Align> align = {});
  void add_row(std::vector<std::string> cells);
  std::string render() const;
  std::size_t rows() const { return rows_.size(); }

 private:
  std::vector<std::string> header_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

// "1,234" / "989.4" / "-" for an absent value.
std::string fmt_number(double value, int decimals = 0);
std::string fmt_optional(const double* value, int decimals = 0, double scale = 1.0);

}  // namespace gpuplan
