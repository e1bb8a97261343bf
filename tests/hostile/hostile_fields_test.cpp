// The hostile-input suite, numbers (issue 34): every number field of every question's table
// (train, memory, search, infer, infer-search, collective, cost, tco, energy, rooflines; core/field_spec.h),
// one test per command, given NaN, ±inf, 1e999, a negative value, an empty value and a word,
// through the CLI with --json. Each case: no signal, no hang over 5 s, exit 2, exactly one JSON
// object on stdout, the message naming the flag, and no NaN or inf printed. The cases come from
// the tables, so a new field is covered when added.
#include <ostream>
#include <type_traits>

#include <gtest/gtest.h>

#include "calibration/collective_fields.h"
#include "cost/rooflines_fields.h"
#include "econ/econ_fields.h"
#include "hostile/guarded_run.h"
#include "infer/infer_fields.h"
#include "plan/train_fields.h"
#include "search/search_fields.h"

namespace gpuplan {
namespace {

struct HostileFieldCase {
  std::vector<std::string> args;
  std::string flag;
};

// The flags of a table's number fields.
template <class R>
std::vector<std::string> number_flags(const std::vector<FieldSpec<R>>& fields) {
  std::vector<std::string> flags;
  for (const FieldSpec<R>& f : fields) {
    const bool number = std::visit(
        [](auto get) {
          using T = std::decay_t<decltype(get(std::declval<R&>()))>;
          return !std::is_same_v<T, std::string> && !std::is_same_v<T, bool> &&
                 !std::is_same_v<T, std::vector<std::string>>;
        },
        f.ref);
    if (number) flags.push_back("--" + field_flag(f));
  }
  return flags;
}

// `base` (the command and its required options) without `flag`, then flag=value.
std::vector<std::string> with_value(const std::vector<std::string>& base, const std::string& flag,
                                    const std::string& value) {
  std::vector<std::string> args;
  for (std::size_t i = 0; i < base.size(); ++i) {
    if (base[i] == flag) {
      ++i;  // drop the base's own value of this flag
      continue;
    }
    args.push_back(base[i]);
  }
  args.push_back(flag + "=" + value);
  args.emplace_back("--json");
  return args;
}

// One command's base question and the flags of its table's number fields.
struct HostileFieldCommand {
  std::string name;  // the test's name
  std::vector<std::string> base;
  std::vector<std::string> flags;
};

// The test's parameter in gtest's messages: its name, not its bytes.
void PrintTo(const HostileFieldCommand& command, std::ostream* os) { *os << command.name; }

std::vector<HostileFieldCommand> hostile_field_commands() {
  return {
      {"train", {"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8"}, number_flags(train_fields())},
      {"memory", {"memory", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8"}, number_flags(train_fields())},
      {"search",
       {"search", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--global-batch", "64"},
       number_flags(search_fields())},
      {"infer", {"infer", "--model", "llama3.1-8b", "--gpu", "h100-sxm"}, number_flags(infer_fields())},
      {"infer_search", {"infer-search", "--model", "llama3.1-8b", "--gpu", "h100-sxm"},
       number_flags(infer_search_fields())},
      {"collective",
       {"collective", "--op", "allreduce", "--bytes", "1GiB", "--gpus", "8", "--system", "dgx-h100"},
       number_flags(collective_fields())},
      {"cost", {"cost", "--gpu", "h100-sxm", "--gpus", "8", "--days", "2"}, number_flags(cost_fields())},
      {"tco", {"tco", "--gpu", "h100-sxm", "--gpus", "8"}, number_flags(tco_fields())},
      {"energy", {"energy", "--gpu", "h100-sxm", "--gpus", "8", "--hours", "10"}, number_flags(energy_fields())},
      {"rooflines", {"rooflines", "--gpu", "h100-sxm"}, number_flags(rooflines_fields())},
  };
}

std::vector<HostileFieldCase> hostile_field_cases(const HostileFieldCommand& command) {
  std::vector<HostileFieldCase> cases;
  for (const std::string& flag : command.flags) {
    for (const char* value : {"nan", "inf", "-inf", "1e999", "-5", "", "lots"}) {
      cases.push_back({with_value(command.base, flag, value), flag});
    }
  }
  return cases;
}

// One test per command, so that the sanitizer build's shards (docs/testing.md) share the cases.
class HostileFieldsOf : public ::testing::TestWithParam<HostileFieldCommand> {};

TEST_P(HostileFieldsOf, EveryBadNumberExitsTwoNamingTheFlag) {
  const std::vector<HostileFieldCase> cases = hostile_field_cases(GetParam());
  ASSERT_GE(cases.size(), 7U) << "a table without a number field";
  RecordProperty("cases", static_cast<int>(cases.size()));  // in --gtest_output=xml, for the count
  std::vector<std::vector<std::string>> calls;
  for (const HostileFieldCase& c : cases) calls.push_back(c.args);
  const std::vector<testing::GuardedResult> results = testing::run_guarded_each(calls);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const HostileFieldCase& c = cases[i];
    const testing::GuardedResult& r = results[i];
    std::string cmd;
    for (const std::string& a : c.args) cmd += a + " ";
    EXPECT_FALSE(r.hung) << cmd << ": still running after 5 s";
    EXPECT_EQ(r.signal, 0) << cmd << ": signal " << r.signal;
    if (r.hung || r.signal != 0) continue;
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.out.substr(0, 400) << r.err;
    EXPECT_EQ(testing::not_one_json_object(r.out), "") << cmd << "\n" << r.out.substr(0, 400);
    // --spec-acceptance without --spec-draft-tokens: the message names the flag that must come first.
    const bool named = r.out.find(c.flag) != std::string::npos ||
                       (c.flag == "--spec-acceptance" && r.out.find("--spec-draft-tokens") != std::string::npos);
    EXPECT_TRUE(named) << cmd << "\n" << r.out.substr(0, 400);
    EXPECT_TRUE(r.err.empty()) << cmd << "\n" << r.err;
  }
}

INSTANTIATE_TEST_SUITE_P(HostileFields, HostileFieldsOf, ::testing::ValuesIn(hostile_field_commands()),
                         [](const ::testing::TestParamInfo<HostileFieldCommand>& param_info) {
                           return param_info.param.name;
                         });

// The ten tables' number fields, seven bad values each: at least 300 cases in all.
TEST(HostileFields, CasesCoverTheTenTables) {
  EXPECT_EQ(hostile_field_commands().size(), 10U);
  std::size_t cases = 0;
  for (const HostileFieldCommand& command : hostile_field_commands()) cases += hostile_field_cases(command).size();
  EXPECT_GE(cases, 300U);
}

// The answers to good questions print no NaN, no inf and no 300-digit number, in text or JSON.
TEST(HostileFields, AnswersPrintNoNanInfOrEndlessDigits) {
  const std::vector<std::vector<std::string>> questions = {
      {"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8"},
      {"train", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--gpus", "8", "--tp", "8"},  // does not fit
      {"memory", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8"},
      {"infer", "--model", "llama3.1-8b", "--gpu", "h100-sxm"},
      {"infer", "--model", "llama3.1-405b", "--gpu", "h100-sxm"},  // weights do not fit one GPU
      {"infer", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--tp", "8", "--concurrency", "2000"},
      {"gpu", "h100-sxm"},
      {"model", "llama3.1-8b"},
  };
  std::vector<std::vector<std::string>> calls;
  for (const auto& q : questions) {
    for (const bool as_json : {false, true}) {
      calls.push_back(q);
      if (as_json) calls.back().emplace_back("--json");
    }
  }
  // Whole answers (a simulation among them): 30 s each, for the sanitizer build on a loaded machine.
  const std::vector<testing::GuardedResult> results = testing::run_guarded_each(calls, 30.0);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const testing::GuardedResult& r = results[i];
    const bool as_json = calls[i].back() == "--json";
    std::string cmd;
    for (const std::string& a : calls[i]) cmd += a + " ";
    EXPECT_FALSE(r.hung) << cmd;
    EXPECT_EQ(r.signal, 0) << cmd;
    EXPECT_EQ(r.code, 0) << cmd << r.err;
    EXPECT_EQ(testing::bad_number_in(r.out), "") << cmd;
    if (as_json) {
      EXPECT_EQ(testing::not_one_json_object(r.out), "") << cmd;
      EXPECT_EQ(r.out.find("\"kv_budget_bytes\": -"), std::string::npos) << cmd;
    }
  }
}

// Under --json a step that fails after the answer (a report into a missing folder) leaves one
// object on stdout: the error.
TEST(HostileFields, ALaterFailureLeavesOneJsonObject) {
  const testing::GuardedResult r = testing::run_guarded(
      {"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--html", "/nonexistent/dir/r.html",
       "--json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(testing::not_one_json_object(r.out), "") << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("--html"), std::string::npos) << r.out.substr(0, 400);
}

// The silent acceptances the issue lists, each now exit 2 naming the flag.
TEST(HostileFields, FormerSilentAcceptancesAreRefused) {
  const auto dir = testing::scratch_dir("hostile-silent");
  const auto header_only = testing::write_file(dir / "runs.csv", "model,gpu,gpus\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"train", "--model", "llama3.1-8b", "--gpus", ""}, "--gpus ''"},
      {{"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--overhead-gib", "-5"},
       "--overhead-gib -5"},
      {{"train", "--model", "llama3.1-8b", "--gpus", "8", "--zero", "1", "--dp-shard", "0"}, "--dp-shard 0"},
      {{"search", "--model", "llama3.1-8b", "--gpus", "8", "--global-batch", "64", "--time-limit", "nan"},
       "--time-limit"},
      {{"infer-search", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--ttft-ms", "0"}, "--ttft-ms 0"},
      {{"infer-search", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--tpot-ms", "0"}, "--tpot-ms 0"},
      {{"collective", "--op", "allreduce", "--bytes", "1GiB", "--gpus", "8", "--system", "dgx-h100", "--nodes", "0"},
       "--nodes 0"},
      {{"validate", "training", header_only.string()}, "no rows under the header"},
      {{"train", "--model", "llama3.1-8b", "--gpus", "8", "--overhead-gib", "1e999"}, "--overhead-gib"},
      {{"train", "--model", "llama3.1-8b", "--gpus", "64", "--pp", "64"}, "use --pp 32 or fewer"},
      {{"train", "--model", "llama3.1-8b", "--gpus", "64", "--ep", "8"}, "a dense model"},
      {{"train", "--model", "llama3.1-8b", "--gpus", "8", "--vp", "2"}, "--vp 2 without a pipeline"},
      {{"train", "--model", "llama3.1-8b", "--gpus", "8", "--zero", "1", "--dp-shard", "3"}, "use --dp-shard 1, 2, 4 or 8"},
      {{"infer", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--tp", "3"}, "use --tp 1, 2, 4 or 8"},
  };
  std::vector<std::vector<std::string>> calls;
  for (const auto& c : cases) calls.push_back(c.first);
  const std::vector<testing::GuardedResult> results = testing::run_guarded_each(calls);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& [args, says] = cases[i];
    const testing::GuardedResult& r = results[i];
    std::string cmd;
    for (const std::string& a : args) cmd += a + " ";
    EXPECT_EQ(r.signal, 0) << cmd;
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.out.substr(0, 300) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << cmd << "\n" << r.err;
  }
}

}  // namespace
}  // namespace gpuplan
