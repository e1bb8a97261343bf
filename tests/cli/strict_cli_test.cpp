// Global strictness of the command line (issue 12): an unknown command gets a suggestion,
// `help` is a command, and with --json every error is one JSON object on stdout.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

// Bad input: exit 2, and the message names the flag or word and the bad value.
struct BadInputCase {
  std::vector<std::string> args;
  std::vector<std::string> message_has;  // every one must be in the message
};

const BadInputCase kBadInput[] = {
    {{"trian"}, {"unknown command 'trian'", "did you mean train?"}},
    {{"infer-serch", "--model", "x"}, {"unknown command 'infer-serch'", "infer-search"}},
    {{"--no-builtin", "modles"}, {"unknown command 'modles'", "models"}},
    {{"--catalog", GPUPLAN_SOURCE_DIR "/data", "xyzzy"}, {"unknown command 'xyzzy'", "the commands are:", "train"}},
    {{"help", "trian"}, {"unknown command 'trian'", "train"}},
    {{"gpus", "--vendor", "nvidiaa"}, {"--vendor", "nvidiaa", "NVIDIA"}},
    {{"clouds", "--provider", "awz"}, {"--provider", "awz", "aws"}},
    {{"clouds", "--gpu", "h10"}, {"--gpu", "h10", "h100-sxm"}},
    {{"compare", "h100-sxm"}, {"compare h100-sxm", "at least two GPUs"}},
    {{"model", "llama3.1-8b", "--seq-len", "0"}, {"--seq-len 0", "between 1 and"}},
    {{"validate", "training", "/nonexistent/runs.csv"}, {"validate training FILE '/nonexistent/runs.csv'", "no such file"}},
    {{"validate", "calibration", GPUPLAN_SOURCE_DIR "/README.md", "--system", "dgx-h10"},
     {"--system", "dgx-h10", "dgx-h100"}},
};

TEST(StrictCli, BadInputExitsTwoNamingTheValue) {
  for (const BadInputCase& c : kBadInput) {
    const auto r = run(c.args);
    std::string cmd;
    for (const auto& a : c.args) cmd += a + " ";
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.err;
    for (const std::string& part : c.message_has) EXPECT_NE(r.err.find(part), std::string::npos) << cmd << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << cmd << "\n" << r.out;
  }
}

// The same cases with --json: one JSON object on stdout with the same message, nothing on stderr.
TEST(StrictCli, WithJsonEveryErrorIsOneJsonObject) {
  for (const BadInputCase& c : kBadInput) {
    std::vector<std::string> args = c.args;
    args.emplace_back("--json");
    const auto r = run(args);
    std::string cmd;
    for (const auto& a : args) cmd += a + " ";
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_TRUE(r.err.empty()) << cmd << "\n" << r.err;
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << cmd << "\n" << r.out;
    EXPECT_EQ(j["error"]["exit_code"], 2) << cmd;
    const std::string message = j["error"]["message"];
    for (const std::string& part : c.message_has) EXPECT_NE(message.find(part), std::string::npos) << cmd << message;
  }
}

TEST(StrictCli, ParseErrorsAreJsonToo) {
  // A CLI11 parse error (an option no command has), with --json before the command.
  const auto r = run({"--json", "gpus", "--bogus"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.err.empty()) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["error"]["message"].get<std::string>().find("--bogus"), std::string::npos) << r.out;
  // Without --json: text on stderr, nothing on stdout.
  const auto t = run({"gpus", "--bogus"});
  EXPECT_EQ(t.code, 2);
  EXPECT_TRUE(t.out.empty());
  EXPECT_NE(t.err.find("gpuplan: error:"), std::string::npos);
}

TEST(StrictCli, HelpIsACommand) {
  const auto top = run({"help"});
  EXPECT_EQ(top.code, 0) << top.err;
  EXPECT_NE(top.out.find("infer-search"), std::string::npos) << top.out;
  const auto one = run({"help", "train"});
  EXPECT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("--global-batch"), std::string::npos) << one.out;
  EXPECT_EQ(one.out, run({"train", "--help"}).out);
  const auto nested = run({"help", "validate", "training"});
  EXPECT_EQ(nested.code, 0) << nested.err;
  EXPECT_NE(nested.out.find("--leave-one-source-out"), std::string::npos) << nested.out;
}

TEST(StrictCli, CloseNamesOnlySuggestsTypos) {
  const auto far = run({"zzzzzzzz"});
  EXPECT_EQ(far.code, 2);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

}  // namespace
}  // namespace gpuplan
