// Data-driven golden cases: every tests/golden/<command>/*.case file is one test. The runner
// runs the CLI in process with the case's arguments and --json, and checks each expected JSON
// field within its tolerance. Format and rewrite mode: docs/testing.md.
//
//   GPUPLAN_GOLDEN_REWRITE=1 build/gpuplan_tests --gtest_filter='Golden*'
// rewrites every expected value in place with what gpuplan prints now, keeping the paths,
// tolerances, sources and comments; review the diff before committing it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// One `path = value ± tolerance` line.
struct Expectation {
  std::size_t line_index = 0;  // into GoldenCase::lines
  std::string path;            // "best.plan.tp", "rows[0].error"
  json value;
  std::string tolerance;       // as written: "", "0.5%", "1e6"
  double abs_tol = 0;
  double rel_tol = 0;
  std::string source;
};

struct GoldenCase {
  std::string file;
  std::vector<std::string> lines;
  std::vector<std::string> args;
  int exit_code = 0;
  std::vector<Expectation> expectations;
  std::vector<std::string> errors;  // malformed lines, reported as failures
};

// Arguments split at blanks; "double quotes" keep blanks inside one argument.
std::vector<std::string> split_args(const std::string& text) {
  std::vector<std::string> args;
  std::string cur;
  bool quoted = false, any = false;
  for (char c : text) {
    if (c == '"') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && (c == ' ' || c == '\t')) {
      if (any) args.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += c;
      any = true;
    }
  }
  if (any) args.push_back(cur);
  return args;
}

// Where the tolerance starts ("±" or "+-" outside a quoted string value), npos if none.
std::size_t tolerance_at(const std::string& rhs, std::size_t& marker_len) {
  bool quoted = false;
  for (std::size_t i = 0; i < rhs.size(); ++i) {
    if (rhs[i] == '"' && (i == 0 || rhs[i - 1] != '\\')) quoted = !quoted;
    if (quoted) continue;
    if (rhs.compare(i, 2, "\xC2\xB1") == 0) {  // UTF-8 "±"
      marker_len = 2;
      return i;
    }
    if (rhs.compare(i, 2, "+-") == 0) {
      marker_len = 2;
      return i;
    }
  }
  return std::string::npos;
}

GoldenCase parse_case(const fs::path& file) {
  GoldenCase c;
  c.file = file.string();
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) c.lines.push_back(line);
  std::string source;
  bool have_args = false;
  for (std::size_t i = 0; i < c.lines.size(); ++i) {
    const std::string t = trim(c.lines[i]);
    const std::string where = c.file + ":" + std::to_string(i + 1) + ": ";
    if (t.empty() || t[0] == '#') continue;
    if (t.rfind("args:", 0) == 0) {
      c.args = split_args(t.substr(5));
      have_args = true;
    } else if (t.rfind("exit:", 0) == 0) {
      c.exit_code = std::stoi(t.substr(5));
    } else if (t.rfind("source:", 0) == 0) {
      source = trim(t.substr(7));
    } else if (const auto eq = t.find(" = "); eq != std::string::npos) {
      Expectation e;
      e.line_index = i;
      e.path = trim(t.substr(0, eq));
      std::string rhs = trim(t.substr(eq + 3));
      std::size_t marker_len = 0;
      if (const auto at = tolerance_at(rhs, marker_len); at != std::string::npos) {
        e.tolerance = trim(rhs.substr(at + marker_len));
        rhs = trim(rhs.substr(0, at));
        std::string number = e.tolerance;
        const bool relative = !number.empty() && number.back() == '%';
        if (relative) number.pop_back();
        try {
          (relative ? e.rel_tol : e.abs_tol) = std::stod(number) / (relative ? 100 : 1);
        } catch (const std::exception&) {
          c.errors.push_back(where + "bad tolerance '" + e.tolerance + "'");
        }
      }
      try {
        e.value = json::parse(rhs);
      } catch (const std::exception&) {
        c.errors.push_back(where + "bad value '" + rhs + "' (a JSON number, string, true, false or null)");
      }
      if (source.empty()) c.errors.push_back(where + "no 'source:' line above this expectation");
      e.source = source;
      c.expectations.push_back(std::move(e));
    } else {
      c.errors.push_back(where + "not 'args:', 'exit:', 'source:', '# comment' or 'path = value [± tolerance]'");
    }
  }
  if (!have_args) c.errors.push_back(c.file + ": no 'args:' line");
  if (c.expectations.empty()) c.errors.push_back(c.file + ": no expectations");
  return c;
}

// "best.plan.tp" / "rows[0].error" → the JSON value, or nullopt.
std::optional<json> lookup(const json& root, const std::string& path) {
  const json* cur = &root;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      const auto close = path.find(']', i);
      if (close == std::string::npos || !cur->is_array()) return std::nullopt;
      const std::size_t idx = std::stoul(path.substr(i + 1, close - i - 1));
      if (idx >= cur->size()) return std::nullopt;
      cur = &(*cur)[idx];
      i = close + 1;
      continue;
    }
    const auto end = path.find_first_of(".[", i);
    const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (!cur->is_object() || !cur->contains(key)) return std::nullopt;
    cur = &(*cur)[key];
    i = end == std::string::npos ? path.size() : end;
  }
  return *cur;
}

std::vector<fs::path> case_files() {
  std::vector<fs::path> files;
  const fs::path root = fs::path(testing::source_dir()) / "tests" / "golden";
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(root, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".case") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string test_name(const fs::path& file) {
  std::string name = file.parent_path().filename().string() + "_" + file.stem().string();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

class Golden : public ::testing::TestWithParam<fs::path> {};

TEST_P(Golden, Case) {
  GoldenCase c = parse_case(GetParam());
  for (const std::string& e : c.errors) ADD_FAILURE() << e;
  if (!c.errors.empty()) return;
  std::vector<std::string> args = c.args;
  if (std::find(args.begin(), args.end(), "--json") == args.end()) args.emplace_back("--json");
  const auto r = testing::run(args);
  ASSERT_EQ(r.code, c.exit_code) << c.file << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err;
  json out;
  try {
    out = json::parse(r.out);
  } catch (const std::exception& e) {
    FAIL() << c.file << ": output is not one JSON object: " << e.what() << "\n" << r.out;
  }
  // Set and not "0" or empty: GPUPLAN_GOLDEN_REWRITE=0 must not rewrite the cases.
  const char* rewrite_env = std::getenv("GPUPLAN_GOLDEN_REWRITE");
  const bool rewrite = rewrite_env != nullptr && *rewrite_env != '\0' && std::string_view(rewrite_env) != "0";
  bool changed = false;
  for (const Expectation& e : c.expectations) {
    const auto actual = lookup(out, e.path);
    const std::string where = c.file + ":" + std::to_string(e.line_index + 1) + ": " + e.path + " (" + e.source + ")";
    if (!actual) {
      ADD_FAILURE() << where << ": not in the output";
      continue;
    }
    if (rewrite) {
      std::string line = e.path + " = " + actual->dump();
      if (!e.tolerance.empty()) line += " \xC2\xB1 " + e.tolerance;
      if (line != trim(c.lines[e.line_index])) changed = true;
      c.lines[e.line_index] = line;
      continue;
    }
    if (e.value.is_number() && actual->is_number()) {
      const double want = e.value.get<double>();
      const double got = actual->get<double>();
      const double tol = std::max(e.abs_tol, e.rel_tol * std::fabs(want));
      EXPECT_LE(std::fabs(got - want), tol) << where << ": expected " << want << " ± " << tol << ", got " << got;
    } else {
      EXPECT_EQ(*actual, e.value) << where;
    }
  }
  if (rewrite && changed) {
    std::ofstream rewritten(c.file);
    for (const std::string& line : c.lines) rewritten << line << "\n";
    std::cout << "rewrote " << c.file << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, ::testing::ValuesIn(case_files()),
                         [](const ::testing::TestParamInfo<fs::path>& param_info) { return test_name(param_info.param); });

// The runner itself: a wrong value or a missing path must fail, a tolerance must be honoured.
TEST(GoldenRunner, ParsesToleranceAndLooksUpPaths) {
  const fs::path dir = testing::scratch_dir("golden-runner");
  testing::write_file(dir / "x.case",
                      "# a comment\nargs: gpu h100-sxm\nsource: hand\nhbm_bytes = 8.1e10 \xC2\xB1 2%\n"
                      "cuda_cores = 16896\nname = \"H100 SXM\" +- 0\n");
  const GoldenCase c = parse_case(dir / "x.case");
  ASSERT_TRUE(c.errors.empty()) << c.errors.front();
  ASSERT_EQ(c.expectations.size(), 3u);
  EXPECT_DOUBLE_EQ(c.expectations[0].rel_tol, 0.02);
  EXPECT_EQ(c.expectations[1].abs_tol, 0);
  EXPECT_EQ(c.expectations[2].value, "H100 SXM");
  const json j = json::parse(R"({"a": {"b": [1, {"c": 2.5}]}})");
  EXPECT_EQ(lookup(j, "a.b[1].c"), json(2.5));
  EXPECT_FALSE(lookup(j, "a.b[2]"));
  EXPECT_FALSE(lookup(j, "a.x"));
}

TEST(GoldenRunner, RejectsAnExpectationWithoutSource) {
  const fs::path dir = testing::scratch_dir("golden-runner-bad");
  testing::write_file(dir / "y.case", "args: gpus\ncount = 3\nwhat is this\n");
  const GoldenCase c = parse_case(dir / "y.case");
  ASSERT_EQ(c.errors.size(), 2u);
  EXPECT_NE(c.errors[0].find("no 'source:'"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan
