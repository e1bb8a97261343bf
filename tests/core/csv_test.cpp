// The CSV reader: RFC 4180 quoting, and errors that name the file, line and column.
#include "core/csv.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace gpuplan {
namespace {

TEST(Csv, QuotedFieldsHoldCommasQuotesAndNewlines) {
  const auto t = CsvTable::parse(
      "id,source,bytes\n"
      "a,\"x, y (\"\"z\"\")\",512\r\n"
      "b,\"two\nlines\",  1024 \n"
      "\n"
      "c,,2048\n",
      "t.csv");
  ASSERT_EQ(t.rows().size(), 3u);
  EXPECT_EQ(t.cell(t.rows()[0], 1), "x, y (\"z\")");
  EXPECT_EQ(t.number(t.rows()[0], t.column("bytes")), 512);
  EXPECT_EQ(t.cell(t.rows()[1], 1), "two\nlines");
  EXPECT_EQ(t.integer(t.rows()[1], 2), 1024);
  EXPECT_EQ(t.rows()[2].line, 6);  // line numbers count the newline inside the quotes
  EXPECT_FALSE(t.opt_number(t.rows()[2], 1).has_value());
}

TEST(Csv, ShortRowsReadAsEmptyCells) {
  const auto t = CsvTable::parse("a,b,c\n1,2\n", "t.csv");
  EXPECT_EQ(t.cell(t.rows()[0], 2), "");
}

std::string csv_error(const std::string& text) {
  try {
    const auto t = CsvTable::parse(text, "m.csv");
    t.number(t.rows().at(0), t.column("n"));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Csv, ErrorsNameFileLineAndColumn) {
  EXPECT_NE(csv_error("n\n\"open\n").find("m.csv:"), std::string::npos);
  EXPECT_NE(csv_error("n\n\"open\n").find("unterminated"), std::string::npos);
  EXPECT_NE(csv_error("n\nab\"c\n").find("m.csv:2:3"), std::string::npos) << csv_error("n\nab\"c\n");
  EXPECT_NE(csv_error("n\n\"a\"b\n").find("m.csv:2:4"), std::string::npos) << csv_error("n\n\"a\"b\n");
  EXPECT_NE(csv_error("n\nx1\n").find("m.csv:2: column 'n': 'x1' is not a number"), std::string::npos);
  EXPECT_NE(csv_error("m\n1\n").find("no column 'n'"), std::string::npos);
  EXPECT_NE(csv_error("n\n1,2\n").find("m.csv:2: 2 fields"), std::string::npos);
  EXPECT_NE(csv_error("").find("empty file"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan
