// The compare page's report (search/compare_training.h, report/compare_report.h): each GPU's
// fastest plan for the same training question, the ratios to the first, and the difference
// named in words with the answer's own figures; `--names A,B` is the positionals.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "report/human_units.h"
#include "search/compare_training.h"
#include "test_util.h"

namespace gpuplan {
namespace {

const std::vector<std::string> kCompareArgs = {"compare",  "h100-sxm", "h200-sxm", "--model",        "llama3.1-8b",
                                               "--gpus",   "8",        "--global-batch", "64", "--seq-len", "4096"};

TEST(CompareTraining, EachGpuGetsItsFastestPlanAndTheRatiosAreToTheFirst) {
  CompareTrainingRequest r;
  r.names = {"h100-sxm", "h200-sxm"};
  r.search.model = "llama3.1-8b";
  r.search.gpus = 8;
  r.search.global_batch = 64;
  r.search.seq_len = 4096;
  const CompareTrainingAnswer a = answer_compare_training(default_catalog(), r);
  ASSERT_EQ(a.sides.size(), 2u);
  for (const CompareTrainingSide& s : a.sides) {
    ASSERT_TRUE(s.found);
    const Candidate& best = s.search->result.top.front();
    EXPECT_DOUBLE_EQ(s.step_time_s, best.estimate.step_time_s);
    ASSERT_GT(s.usd_per_gpu_hour, 0);
    // 8 GPUs × the hourly price / the tokens of an hour, per million tokens.
    EXPECT_NEAR(s.usd_per_million_tokens, s.usd_per_gpu_hour * 8 / (best.estimate.tokens_per_s * 3600) * 1e6, 1e-9);
  }
  EXPECT_DOUBLE_EQ(a.sides[0].speed_vs_first, 1);
  EXPECT_DOUBLE_EQ(a.sides[1].speed_vs_first, a.sides[0].step_time_s / a.sides[1].step_time_s);
  EXPECT_DOUBLE_EQ(a.sides[1].cost_vs_first, a.sides[1].usd_per_million_tokens / a.sides[0].usd_per_million_tokens);
  // The same search the search command runs on each GPU.
  const auto h200 = testing::run({"search", "--model", "llama3.1-8b", "--gpu", "h200-sxm", "--gpus", "8", "--global-batch", "64",
                                  "--seq-len", "4096", "--top", "1", "--json"});
  ASSERT_EQ(h200.code, 0) << h200.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(h200.out).at("best").at("step_time_s").get<double>(), a.sides[1].step_time_s);
}

TEST(CompareReport, TheSentenceNamesTheDifferenceWithTheAnswersFigures) {
  std::vector<std::string> args = kCompareArgs;
  args.emplace_back("--report-data");
  const auto r = testing::run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json data = nlohmann::json::parse(r.out);
  EXPECT_EQ(data.at("kind"), "compare");
  const nlohmann::json& sides = data.at("answer").at("training").at("sides");
  const nlohmann::json& b = sides.at(1);
  const std::string headline = data.at("headline");
  const double speed = b.at("speed_vs_first");
  const std::string speed_words = speed >= 1 ? human_number(speed) + "× faster per step than H100 SXM5 80GB"
                                             : human_number(1 / speed) + "× slower per step than H100 SXM5 80GB";
  EXPECT_NE(headline.find("H200 SXM 141GB is " + speed_words + " (" + human_seconds(b.at("step_time_s")) + " against " +
                          human_seconds(sides.at(0).at("step_time_s")) + " per step"),
            std::string::npos)
      << headline;
  EXPECT_NE(headline.find(human_usd(b.at("usd_per_million_tokens")) + " against " +
                          human_usd(sides.at(0).at("usd_per_million_tokens"))),
            std::string::npos)
      << headline;
  EXPECT_NE(headline.find("1.76× the memory (141 against 80 GB)"), std::string::npos) << headline;
  // The chart's rows: the figures' ratios are value / the first's.
  for (const auto& f : data.at("figures")) {
    const double first = f.at("values").at(0);
    const double second = f.at("values").at(1);
    if (first > 0 && second > 0) {
      EXPECT_DOUBLE_EQ(f.at("ratios").at(1).get<double>(), second / first) << f.dump();
    }
  }
  // --names is the positionals, for the web API.
  std::vector<std::string> listed = {"compare", "--names", "h100-sxm,h200-sxm"};
  listed.insert(listed.end(), kCompareArgs.begin() + 3, kCompareArgs.end());
  listed.emplace_back("--report-data");
  const auto same = testing::run(listed);
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(nlohmann::json::parse(same.out).at("headline"), data.at("headline"));
}

TEST(CompareReport, WithoutAModelTheJsonIsTheDatasheetsAndTrainingFlagsNeedOne) {
  const auto plain = testing::run({"compare", "h100-sxm", "h200-sxm", "--json"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("training"));
  const auto bad = testing::run({"compare", "h100-sxm", "h200-sxm", "--gpus", "8"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("add --model"), std::string::npos) << bad.err;
  const auto both = testing::run({"compare", "h100-sxm", "--names", "h200-sxm,b200"});
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace gpuplan
