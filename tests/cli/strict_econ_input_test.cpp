// Strict input for cost, tco, energy, recommend and recommend --serve: every bad value exits 2
// with a message that names the flag and the value (and, for providers, the known ones). Each
// row was silently accepted, replaced or ignored before, or is a check this test pins.
#include <gtest/gtest.h>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::BadInput;

class StrictEconInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(StrictEconInput, ExitsTwoNamingFlagAndValue) {
  const BadInput& c = GetParam();
  const auto r = testing::run(c.args);
  std::string cmd;
  for (const auto& a : c.args) cmd += a + " ";
  EXPECT_EQ(r.code, 2) << cmd << "\n" << r.err;
  for (const std::string& s : c.says)
    EXPECT_NE(r.err.find(s), std::string::npos) << cmd << "\nmissing '" << s << "' in: " << r.err;
}

const std::vector<std::string> kCost = {"cost", "--gpu", "h100-sxm"};
const std::vector<std::string> kRec = {"recommend", "--model", "llama3-8b", "--tokens", "1B"};
const std::vector<std::string> kServe = {"recommend", "--serve", "--model", "llama3.1-8b"};

std::vector<std::string> cmd(std::vector<std::string> base, std::initializer_list<std::string> more) {
  base.insert(base.end(), more);
  return base;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, StrictEconInput,
    ::testing::Values(
        // cost
        BadInput{cmd(kCost, {"--gpus", "0", "--days", "8"}), {"--gpus 0", "at least 1"}},
        BadInput{cmd(kCost, {"--gpus", "-8", "--days", "8"}), {"--gpus -8"}},
        BadInput{cmd(kCost, {"--gpus", "8", "--hours", "0"}), {"--hours 0", "positive"}},
        BadInput{cmd(kCost, {"--gpus", "8", "--days", "-1"}), {"--days -1"}},
        BadInput{cmd(kCost, {"--gpu-hours", "0"}), {"--gpu-hours 0"}},
        BadInput{cmd(kCost, {"--gpus", "8", "--days", "1", "--usd-per-hour", "-3"}), {"--usd-per-hour -3"}},
        BadInput{cmd(kCost, {"--gpus", "8", "--days", "1", "--usd-per-gpu-hour", "0"}), {"--usd-per-gpu-hour 0"}},
        BadInput{cmd(kCost, {"--gpus", "8", "--days", "1", "--spot-discount", "1.5"}),
                 {"--spot-discount 1.5", "[0, 1]"}},
        BadInput{cmd(kCost, {"--gpus", "8", "--days", "1", "--spot-overhead", "-0.1"}), {"--spot-overhead -0.1"}},
        BadInput{cmd(kCost, {"--gpus", "8", "--days", "1", "--interruptions-per-day", "-1"}),
                 {"--interruptions-per-day -1"}},
        BadInput{cmd(kCost, {"--gpus", "8", "--days", "1", "--restart-hours", "-2"}), {"--restart-hours -2"}},
        BadInput{cmd(kCost, {"--gpus", "8", "--days", "1", "--checkpoint-hours", "-1"}), {"--checkpoint-hours -1"}},
        BadInput{cmd(kCost, {"--model", "llama3-8b", "--tokens", "100B", "--gpus", "8", "--mfu", "0"}),
                 {"--mfu 0", "(0, 1]"}},
        BadInput{cmd(kCost, {"--model", "llama3-8b", "--tokens", "100B", "--gpus", "8", "--mfu", "1.2"}),
                 {"--mfu 1.2"}},
        BadInput{cmd(kCost, {"--model", "llama3-8b", "--tokens", "0", "--gpus", "8"}), {"--tokens", "'0'"}},
        BadInput{cmd(kCost, {"--gpus", "8", "--days", "1", "--tokens", "100B"}), {"--tokens 100B", "--model"}},
        BadInput{cmd(kCost, {"--gpus", "8", "--days", "8", "--provider", "ibm"}),
                 {"--provider 'ibm'", "known providers: aws", "lambda"}},
        // tco
        BadInput{{"tco", "--gpu", "h100-sxm", "--years", "0"}, {"--years 0"}},
        BadInput{{"tco", "--gpu", "h100-sxm", "--gpus", "0"}, {"--gpus 0"}},
        BadInput{{"tco", "--gpu", "h100-sxm", "--pue", "0.9"}, {"--pue 0.9", "at least 1"}},
        BadInput{{"tco", "--gpu", "h100-sxm", "--capex", "-1"}, {"--capex -1"}},
        BadInput{{"tco", "--gpu", "h100-sxm", "--power-kw", "-5"}, {"--power-kw -5"}},
        BadInput{{"tco", "--gpu", "h100-sxm", "--usd-per-kwh", "-0.1"}, {"--usd-per-kwh -0.1"}},
        BadInput{{"tco", "--gpu", "h100-sxm", "--ops-usd-per-year", "-1"}, {"--ops-usd-per-year -1"}},
        BadInput{{"tco", "--gpu", "h100-sxm", "--cloud-usd-per-hour", "0"}, {"--cloud-usd-per-hour 0"}},
        BadInput{{"tco", "--gpu", "h100-sxm", "--provider", "nosuchcloud"},
                 {"--provider 'nosuchcloud'", "known providers"}},
        BadInput{{"tco", "--gpu", "h100-sxm", "--system", "dgx-a100"}, {"--system dgx-a100", "h100-sxm"}},
        // energy
        BadInput{{"energy", "--gpu", "h100-sxm", "--gpus", "0", "--hours", "10"}, {"--gpus 0"}},
        BadInput{{"energy", "--gpu", "h100-sxm", "--gpus", "8", "--hours", "-10"}, {"--hours -10"}},
        BadInput{{"energy", "--gpu", "h100-sxm", "--gpus", "8", "--days", "0"}, {"--days 0"}},
        BadInput{{"energy", "--gpu", "h100-sxm", "--gpus", "8", "--hours", "10", "--utilization", "1.5"},
                 {"--utilization 1.5", "(0, 1]"}},
        BadInput{{"energy", "--gpu", "h100-sxm", "--gpus", "8", "--hours", "10", "--utilization", "0"},
                 {"--utilization 0"}},
        BadInput{{"energy", "--gpu", "h100-sxm", "--gpus", "8", "--hours", "10", "--watts-per-gpu", "0"},
                 {"--watts-per-gpu 0"}},
        BadInput{{"energy", "--gpu", "h100-sxm", "--gpus", "8", "--hours", "10", "--kg-co2-per-kwh", "-1"},
                 {"--kg-co2-per-kwh -1"}},
        BadInput{{"energy", "--gpu", "h100-sxm", "--gpus", "8", "--hours", "10", "--pue", "0.5"}, {"--pue 0.5"}},
        // recommend (training)
        BadInput{{"recommend", "--model", "llama3-8b", "--tokens=-5B"}, {"--tokens", "-5B"}},
        BadInput{cmd(kRec, {"--deadline", "0"}), {"--deadline 0"}},
        BadInput{cmd(kRec, {"--budget", "-100"}), {"--budget -100"}},
        BadInput{cmd(kRec, {"--gpus-max", "0"}), {"--gpus-max 0"}},
        BadInput{cmd(kRec, {"--gpus-list", "8,0"}), {"--gpus-list 0"}},
        // A list of whole numbers: CLI11 refuses a fraction as it does for --tp 2.5.
        BadInput{cmd(kRec, {"--gpus-list", "8,2.5"}), {"--gpus-list", "2.5"}},
        BadInput{cmd(kRec, {"--global-batch", "0"}), {"--global-batch 0"}},
        BadInput{cmd(kRec, {"--seq-len", "-1"}), {"--seq-len -1"}},
        BadInput{cmd(kRec, {"--time-limit", "0"}), {"--time-limit 0"}},
        BadInput{cmd(kRec, {"--threads", "-2"}), {"--threads -2"}},
        BadInput{cmd(kRec, {"--precision", "fp7"}), {"--precision 'fp7'", "bf16"}},
        BadInput{cmd(kRec, {"--providers", "aws,nosuchcloud"}), {"--providers 'nosuchcloud'", "known providers: aws"}},
        // recommend --serve
        BadInput{cmd(kServe, {"--input-len", "0"}), {"--input-len 0"}},
        BadInput{cmd(kServe, {"--output-len", "-3"}), {"--output-len -3"}},
        BadInput{cmd(kServe, {"--gpus-max", "0"}), {"--gpus-max 0"}},
        BadInput{cmd(kServe, {"--rate", "0"}), {"--rate 0"}}, BadInput{cmd(kServe, {"--rate", "-2"}), {"--rate -2"}},
        BadInput{cmd(kServe, {"--ttft-ms", "-1"}), {"--ttft-ms -1"}},
        BadInput{cmd(kServe, {"--tpot-ms", "0"}), {"--tpot-ms 0"}},
        BadInput{cmd(kServe, {"--providers", "nosuchcloud"}), {"--providers 'nosuchcloud'", "known providers"}},
        BadInput{cmd(kServe, {"--engine", "tgi"}), {"tgi"}}));

}  // namespace
}  // namespace gpuplan
