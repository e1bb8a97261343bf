// A small CSV reader for the measured-run files the validators read (RFC 4180: a header row,
// comma-separated fields, double-quoted fields that may hold commas, quotes ("") and newlines).
// Errors name the file, the line and the column.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

class CsvTable {
 public:
  struct Row {
    int line = 0;  // 1-based line where the record starts
    std::vector<std::string> cells;
  };

  // Parses `text`; `file` is only for messages. Throws Error on an unterminated quote, a stray
  // quote inside an unquoted field, or a record wider than the header.
  static CsvTable parse(std::string_view text, std::string file);
  // Reads and parses a file; throws Error when it cannot be read.
  static CsvTable read(const std::string& path);

  const std::string& file() const { return file_; }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<Row>& rows() const { return rows_; }

  // Index of a column by name (exact, after trimming); nullopt when absent.
  std::optional<std::size_t> find_column(std::string_view name) const;
  // Index of a required column; throws Error naming the file and the columns it has.
  std::size_t column(std::string_view name) const;

  // A cell, trimmed; empty when the record is shorter than the header.
  std::string_view cell(const Row& row, std::size_t column) const;
  // Typed cells: throw Error("file:line: column 'name': ...") on bad values.
  std::string text(const Row& row, std::size_t column) const;                  // non-empty
  double number(const Row& row, std::size_t column) const;                     // finite
  std::optional<double> opt_number(const Row& row, std::size_t column) const;  // empty = nullopt
  long long integer(const Row& row, std::size_t column) const;

  // "file:line: column 'name'" for messages about a cell.
  std::string where(const Row& row, std::size_t column) const;

 private:
  std::string file_;
  std::vector<std::string> header_;
  std::vector<Row> rows_;
};

}  // namespace gpuplan
