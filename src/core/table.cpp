#include "core/table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {
namespace {

// Display width in terminal columns: count UTF-8 lead bytes, not continuation bytes.
std::size_t display_width(const std::string& text) {
  std::size_t width = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++width;
  }
  return width;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header, std::vector<Align> align)
    : header_(std::move(header)), align_(std::move(align)) {
  align_.resize(header_.size(), Align::left);
}

void TextTable::add_row(std::vector<std::string> cells) {
  GP_ASSERT(cells.size() == header_.size(), "row width must match the header");
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<std::size_t> width(header_.size());
  for (std::size_t c = 0; c < header_.size(); ++c) width[c] = display_width(header_[c]);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::size_t pad = width[c] - display_width(cells[c]);
      if (c) out += "  ";
      if (align_[c] == Align::right) out += std::string(pad, ' ') + cells[c];
      else out += cells[c] + (c + 1 < cells.size() ? std::string(pad, ' ') : "");
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  std::vector<std::string> rule;
  for (std::size_t c = 0; c < header_.size(); ++c) rule.emplace_back(width[c], '-');
  out += line(rule);
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string fmt_number(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  std::string digits = fmt::format("{:.{}f}", std::fabs(value), decimals);
  const std::size_t dot = digits.find('.');
  std::string int_part = digits.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : digits.substr(dot);
  std::string grouped;
  for (std::size_t i = 0; i < int_part.size(); ++i) {
    if (i && (int_part.size() - i) % 3 == 0) grouped += ',';
    grouped += int_part[i];
  }
  return (value < 0 ? "-" : "") + grouped + frac;
}

std::string fmt_optional(const double* value, int decimals, double scale) {
  if (!value) return "-";
  return fmt_number(*value * scale, decimals);
}

}  // namespace gpuplan
