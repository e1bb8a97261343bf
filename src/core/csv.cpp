#include "core/csv.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/input_file.h"
#include "core/strings.h"

namespace gpuplan {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

CsvTable CsvTable::parse(std::string_view text, std::string file) {
  CsvTable table;
  table.file_ = std::move(file);
  std::vector<std::vector<std::string>> records;
  std::vector<int> record_lines;
  std::vector<std::string> fields;
  std::string field;
  bool in_quotes = false;
  bool was_quoted = false;
  int line = 1;
  int col = 1;
  int record_line = 1;
  auto fail = [&](const std::string& why) { throw Error(fmt::format("{}:{}:{}: {}", table.file_, line, col, why)); };
  auto end_field = [&] {
    fields.push_back(was_quoted ? field : std::string(trim(field)));
    field.clear();
    was_quoted = false;
  };
  auto end_record = [&] {
    end_field();
    const bool blank = fields.size() == 1 && fields[0].empty();
    if (!blank) {
      records.push_back(std::move(fields));
      record_lines.push_back(record_line);
    }
    fields.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
          ++col;
        } else {
          in_quotes = false;
        }
      } else {
        field.push_back(c);
        if (c == '\n') {
          ++line;
          col = 0;
        }
      }
    } else if (c == '"') {
      if (!trim(field).empty()) fail("a quote inside an unquoted field; quote the whole field and double inner quotes");
      field.clear();
      in_quotes = true;
      was_quoted = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n') {
      end_record();
      ++line;
      col = 0;
      record_line = line;
    } else if (was_quoted) {
      if (c != '\r' && c != ' ' && c != '\t') fail("text after a closing quote; quote the whole field");
    } else {
      field.push_back(c);
    }
    ++col;
  }
  if (in_quotes) fail("unterminated quoted field (a \" is never closed)");
  if (!field.empty() || !fields.empty() || was_quoted) end_record();
  if (records.empty()) throw Error(fmt::format("{}: empty file; expected a header row", table.file_));
  table.header_ = std::move(records.front());
  for (auto& h : table.header_) h = std::string(trim(h));
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() > table.header_.size()) {
      throw Error(fmt::format("{}:{}: {} fields but the header has {} columns", table.file_, record_lines[r],
                              records[r].size(), table.header_.size()));
    }
    table.rows_.push_back(Row{record_lines[r], std::move(records[r])});
  }
  return table;
}

CsvTable CsvTable::read(const std::string& path) {
  return parse(read_input_file(path, "CSV file"), path);
}

std::optional<std::size_t> CsvTable::find_column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

std::size_t CsvTable::column(std::string_view name) const {
  if (auto c = find_column(name)) return *c;
  throw Error(fmt::format("{}:1: no column '{}'; the header has: {}", file_, name, join(header_, ", ")));
}

std::string_view CsvTable::cell(const Row& row, std::size_t column) const {
  return column < row.cells.size() ? trim(row.cells[column]) : std::string_view{};
}

std::string CsvTable::where(const Row& row, std::size_t column) const {
  return fmt::format("{}:{}: column '{}'", file_, row.line, column < header_.size() ? header_[column] : "?");
}

std::string CsvTable::text(const Row& row, std::size_t column) const {
  const std::string_view v = cell(row, column);
  if (v.empty()) throw Error(fmt::format("{}: empty; a value is required", where(row, column)));
  return std::string(v);
}

std::optional<double> CsvTable::opt_number(const Row& row, std::size_t column) const {
  const std::string_view v = cell(row, column);
  if (v.empty()) return std::nullopt;
  double value = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
  if (ec != std::errc() || ptr != v.data() + v.size() || !std::isfinite(value)) {
    throw Error(fmt::format("{}: '{}' is not a number", where(row, column), v));
  }
  return value;
}

double CsvTable::number(const Row& row, std::size_t column) const {
  auto v = opt_number(row, column);
  if (!v) throw Error(fmt::format("{}: empty; a number is required", where(row, column)));
  return *v;
}

long long CsvTable::integer(const Row& row, std::size_t column) const {
  const double v = number(row, column);
  if (v != std::floor(v) || std::fabs(v) > 9e15) {
    throw Error(fmt::format("{}: '{}' is not a whole number", where(row, column), cell(row, column)));
  }
  return static_cast<long long>(v);
}

}  // namespace gpuplan
