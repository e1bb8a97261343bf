// The field tables (core/field_spec.h) against every interface that exposes them: the CLI's
// flags of train, search, infer, infer-search, recommend, collective, cost, tco, energy and compare, the web API's
// allowlist, the Python stubs
// (python/gpuplan/__init__.pyi) and docs/cli.md. The CLI and Python bind their options from the
// tables, so these tests fail when a flag or keyword is added by hand beside a table, or a
// table entry is missing from the docs or the stubs.
#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "calibration/collective_fields.h"
#include "calibration/gpu_fields.h"
#include "catalog/lookup_fields.h"
#include "cost/rooflines_fields.h"
#include "econ/econ_fields.h"
#include "econ/recommend_question.h"
#include "infer/infer_fields.h"
#include "plan/train_fields.h"
#include "search/compare_training.h"
#include "search/search_fields.h"
#include "serve/api.h"
#include "test_util.h"

namespace gpuplan {
namespace {

using Names = std::set<std::string>;

// The flags `gpuplan COMMAND --help` lists, without "--".
Names cli_flags(const std::string& command) {
  const auto help = testing::run({command, "--help"});
  EXPECT_EQ(help.code, 0) << command;
  Names flags;
  std::istringstream lines(help.out);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line[start] != '-') continue;
    std::string word = line.substr(start, line.find(' ', start) - start);
    // "-h,--help", "--deadline,--deadline-days"
    std::istringstream names(word);
    for (std::string name; std::getline(names, name, ',');) {
      // "--no-tp-overlap{false}": CLI11 shows a negated switch's stored value.
      if (name.starts_with("--")) flags.insert(name.substr(2, name.find('{') == std::string::npos ? std::string::npos : name.find('{') - 2));
    }
  }
  return flags;
}

template <class R>
Names table_flags(const std::vector<FieldSpec<R>>& fields) {
  Names out;
  for (const auto& f : fields) {
    out.insert(field_flag(f));
    if (!f.alias.empty()) out.insert(std::string(f.alias));
  }
  return out;
}

template <class R>
Names table_http_keys(const std::vector<FieldSpec<R>>& fields) {
  Names out;
  for (const auto& f : fields) {
    if (!field_over_http(f)) continue;
    out.insert(field_http_key(f));
    if (!f.alias.empty()) out.insert(field_http_alias(f));
  }
  return out;
}

template <class R>
Names table_names(const std::vector<FieldSpec<R>>& fields) {
  Names out;
  for (const auto& f : fields) out.insert(std::string(f.name));
  return out;
}

Names with(Names names, std::initializer_list<const char*> more) {
  for (const char* m : more) names.insert(m);
  return names;
}

Names without(Names names, const char* name) {
  names.erase(name);
  return names;
}

Names http_keys(const std::string& command) {
  const std::vector<std::string> keys = api_keys(command);
  return {keys.begin(), keys.end()};
}

TEST(FieldTables, CliFlagsAreTheTablesFields) {
  EXPECT_EQ(cli_flags("train"), with(table_flags(train_fields()), {"help", "json", "html", "report-data", "emit", "from"}));
  EXPECT_EQ(cli_flags("memory"), with(table_flags(train_fields()), {"help", "json", "rule-of-thumb"}));
  EXPECT_EQ(cli_flags("search"), with(table_flags(search_fields()), {"help", "json", "html", "report-data"}));
  EXPECT_EQ(cli_flags("infer"), with(table_flags(infer_fields()), {"help", "json", "html", "report-data", "emit"}));
  EXPECT_EQ(cli_flags("infer-search"), with(table_flags(infer_search_fields()), {"help", "json", "html", "report-data"}));
  EXPECT_EQ(cli_flags("recommend"), with(table_flags(recommend_fields()), {"help", "json", "html", "report-data"}));
  EXPECT_EQ(cli_flags("collective"), with(table_flags(collective_fields()), {"help", "json", "html", "report-data"}));
  EXPECT_EQ(cli_flags("cost"), with(table_flags(cost_fields()), {"help", "json", "html", "report-data"}));
  EXPECT_EQ(cli_flags("tco"), with(table_flags(tco_fields()), {"help", "json"}));
  EXPECT_EQ(cli_flags("energy"), with(table_flags(energy_fields()), {"help", "json"}));
  EXPECT_EQ(cli_flags("compare"), with(table_flags(compare_fields()), {"help", "json", "html", "report-data"}));
  EXPECT_EQ(cli_flags("rooflines"), with(table_flags(rooflines_fields()), {"help", "json"}));
  EXPECT_EQ(cli_flags("gpus"), with(table_flags(gpus_fields()), {"help", "json"}));
  EXPECT_EQ(cli_flags("clouds"), with(table_flags(clouds_fields()), {"help", "json"}));
  // `gpu NAME` and `system NAME`: the table's `name` is the positional, every other field a flag.
  EXPECT_EQ(cli_flags("gpu"), with(without(table_flags(gpu_fields()), "name"), {"help", "json"}));
  EXPECT_EQ(cli_flags("system"), with(without(table_flags(system_fields()), "name"), {"help", "json"}));
}

TEST(FieldTables, HttpAllowlistIsTheTablesFieldsWithoutPaths) {
  EXPECT_EQ(http_keys("train"), with(table_http_keys(train_fields()), {"emit"}));
  EXPECT_EQ(http_keys("memory"), with(table_http_keys(train_fields()), {"rule_of_thumb"}));
  EXPECT_EQ(http_keys("search"), table_http_keys(search_fields()));
  EXPECT_EQ(http_keys("infer"), with(table_http_keys(infer_fields()), {"emit"}));
  EXPECT_EQ(http_keys("infer-search"), table_http_keys(infer_search_fields()));
  EXPECT_EQ(http_keys("recommend"), table_http_keys(recommend_fields()));
  EXPECT_EQ(http_keys("collective"), table_http_keys(collective_fields()));
  EXPECT_EQ(http_keys("cost"), table_http_keys(cost_fields()));
  EXPECT_EQ(http_keys("compare"), table_http_keys(compare_fields()));
  // Never a path, never a machine resource.
  for (const std::string command :
       {"train", "memory", "search", "infer", "infer-search", "recommend", "collective", "cost", "compare"}) {
    for (const char* key : {"calibration", "threads", "from", "html"}) EXPECT_EQ(http_keys(command).count(key), 0U);
  }
}

// The parameters of `def FUNCTION(` in the stubs, without catalog.
Names stub_parameters(const std::string& function, std::vector<std::pair<std::string, std::string>>* defaults = nullptr) {
  std::ifstream in(testing::source_dir() + "/python/gpuplan/__init__.pyi");
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const std::size_t at = all.find("\ndef " + function + "(");
  EXPECT_NE(at, std::string::npos) << function;
  if (at == std::string::npos) return {};
  const std::size_t end = all.find(") ->", at);
  std::istringstream params(all.substr(at, end - at));
  Names out;
  for (std::string line; std::getline(params, line);) {
    const std::size_t colon = line.find(':');
    const std::size_t start = line.find_first_not_of(' ');
    if (colon == std::string::npos || start == std::string::npos || line.starts_with("def")) continue;
    const std::string name = line.substr(start, colon - start);
    if (name == "catalog") continue;
    out.insert(name);
    const std::size_t eq = line.find(" = ");
    if (defaults && eq != std::string::npos) {
      std::string value = line.substr(eq + 3);
      if (value.ends_with(",")) value.pop_back();
      defaults->emplace_back(name, value);
    }
  }
  return out;
}

// A stub default against the request struct's: literals must agree ("..." and None say
// "computed" or "unset").
template <class R>
void expect_stub_defaults(const std::string& function, const std::vector<FieldSpec<R>>& fields) {
  std::vector<std::pair<std::string, std::string>> defaults;
  stub_parameters(function, &defaults);
  for (const auto& [name, stub] : defaults) {
    const auto f = std::find_if(fields.begin(), fields.end(), [&](const auto& s) { return s.name == name; });
    if (f == fields.end() || stub == "..." || stub == "None") continue;
    std::string want = field_default_text(*f);
    std::string got = stub;
    if (got == "True" || got == "False") got = got == "True" ? "true" : "false";
    if (got.size() >= 2 && got.front() == '"') got = got.substr(1, got.size() - 2);
    if (got != want) {
      // 1.0 and 1 are the same number.
      char* end = nullptr;
      const double g = std::strtod(got.c_str(), &end);
      if (*end == '\0' && !got.empty() && g == std::strtod(want.c_str(), nullptr)) continue;
    }
    EXPECT_EQ(got, want) << function << "(" << name << "=...): the stub's default is not the request's";
  }
}

TEST(FieldTables, PythonStubsAreTheTablesFields) {
  EXPECT_EQ(stub_parameters("train"), table_names(train_fields()));
  EXPECT_EQ(stub_parameters("search"), table_names(search_fields()));
  EXPECT_EQ(stub_parameters("infer"), table_names(infer_fields()));
  EXPECT_EQ(stub_parameters("infer_search"), table_names(infer_search_fields()));
  EXPECT_EQ(stub_parameters("recommend"), table_names(recommend_fields()));
  EXPECT_EQ(stub_parameters("collective"), table_names(collective_fields()));
  EXPECT_EQ(stub_parameters("cost"), table_names(cost_fields()));
  EXPECT_EQ(stub_parameters("tco"), table_names(tco_fields()));
  EXPECT_EQ(stub_parameters("energy"), table_names(energy_fields()));
  EXPECT_EQ(stub_parameters("compare"), table_names(compare_fields()));
  expect_stub_defaults("train", train_fields());
  expect_stub_defaults("search", search_fields());
  expect_stub_defaults("infer", infer_fields());
  expect_stub_defaults("infer_search", infer_search_fields());
  expect_stub_defaults("recommend", recommend_fields());
  expect_stub_defaults("collective", collective_fields());
  expect_stub_defaults("cost", cost_fields());
  expect_stub_defaults("tco", tco_fields());
  expect_stub_defaults("energy", energy_fields());
  expect_stub_defaults("compare", compare_fields());
  EXPECT_EQ(stub_parameters("rooflines"), table_names(rooflines_fields()));
  EXPECT_EQ(stub_parameters("gpus"), table_names(gpus_fields()));
  EXPECT_EQ(stub_parameters("gpu"), table_names(gpu_fields()));
  EXPECT_EQ(stub_parameters("system"), table_names(system_fields()));
  EXPECT_EQ(stub_parameters("clouds"), table_names(clouds_fields()));
  expect_stub_defaults("rooflines", rooflines_fields());
  expect_stub_defaults("gpus", gpus_fields());
  expect_stub_defaults("gpu", gpu_fields());
  expect_stub_defaults("clouds", clouds_fields());
}

TEST(FieldTables, DocsCliNamesEveryFlag) {
  std::ifstream in(testing::source_dir() + "/docs/cli.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const auto check = [&doc](const Names& flags, const std::string& command) {
    for (const std::string& flag : flags) {
      EXPECT_NE(doc.find("--" + flag), std::string::npos) << "docs/cli.md does not mention " << command << " --" << flag;
    }
  };
  check(table_flags(train_fields()), "train");
  check(table_flags(search_fields()), "search");
  check(table_flags(infer_fields()), "infer");
  check(table_flags(infer_search_fields()), "infer-search");
  check(table_flags(recommend_fields()), "recommend");
  check(table_flags(collective_fields()), "collective");
  check(table_flags(cost_fields()), "cost");
  check(table_flags(tco_fields()), "tco");
  check(table_flags(energy_fields()), "energy");
  check(table_flags(compare_fields()), "compare");
  check(table_flags(rooflines_fields()), "rooflines");
  check(table_flags(gpus_fields()), "gpus");
  check(table_flags(clouds_fields()), "clouds");
  check(without(table_flags(gpu_fields()), "name"), "gpu");
}

template <class R>
void expect_well_formed(const std::vector<FieldSpec<R>>& fields, const char* table) {
  Names seen;
  for (const auto& f : fields) {
    EXPECT_TRUE(seen.insert(std::string(f.name)).second) << table << ": " << f.name << " twice";
    EXPECT_FALSE(f.help.empty()) << table << ": " << f.name << " has no help";
    if (f.traits & kTakesPath) {
      EXPECT_FALSE(field_over_http(f)) << table << ": " << f.name;
    }
  }
}

TEST(FieldTables, EveryFieldOnceWithHelp) {
  expect_well_formed(train_fields(), "train");
  expect_well_formed(search_fields(), "search");
  expect_well_formed(infer_fields(), "infer");
  expect_well_formed(infer_search_fields(), "infer-search");
  expect_well_formed(recommend_fields(), "recommend");
  expect_well_formed(collective_fields(), "collective");
  expect_well_formed(cost_fields(), "cost");
  expect_well_formed(tco_fields(), "tco");
  expect_well_formed(energy_fields(), "energy");
  expect_well_formed(compare_fields(), "compare");
  expect_well_formed(rooflines_fields(), "rooflines");
  expect_well_formed(gpus_fields(), "gpus");
  expect_well_formed(gpu_fields(), "gpu");
  expect_well_formed(system_fields(), "system");
  expect_well_formed(clouds_fields(), "clouds");
  // The defaults come from the request structs' initialisers.
  const auto tp = std::find_if(train_fields().begin(), train_fields().end(), [](const auto& f) { return f.name == "tp"; });
  EXPECT_EQ(field_default_text(*tp), "1");
  EXPECT_EQ(field_flag(*std::find_if(train_fields().begin(), train_fields().end(),
                                     [](const auto& f) { return f.name == "tp_overlap"; })),
            "no-tp-overlap");
}

}  // namespace
}  // namespace gpuplan
