// `gpuplan search` end to end, in process.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

TEST(SearchCli, JsonHasTheDocumentedKeys) {
  const auto r = run({"search", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "16", "--global-batch", "64",
                      "--seq-len", "4096", "--top", "3", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"evaluated", "feasible", "elapsed_s", "best", "top", "pruned", "space"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  EXPECT_EQ(j["top"].size(), 3u);
  EXPECT_EQ(j["best"]["plan"], j["top"][0]["plan"]);
  EXPECT_EQ(j["evaluated"].get<long long>() + j["pruned"].get<long long>(), j["space"].get<long long>());
  EXPECT_LE(j["top"][0]["step_time_s"].get<double>(), j["top"][1]["step_time_s"].get<double>());
}

TEST(SearchCli, TextShowsCountsAndBreakdowns) {
  const auto r = run({"search", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "8", "--global-batch", "32",
                      "--seq-len", "4096", "--top", "2", "--objective", "cost"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("evaluated"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("where the step goes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/GPU-hour"), std::string::npos) << r.out;
}

TEST(SearchCli, NothingFitsPrintsTheClosestPlans) {
  const auto r = run({"search", "--model", "llama3.1-405b", "--gpu", "h100-sxm", "--gpus", "8", "--global-batch", "8",
                      "--seq-len", "4096"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("no plan fits"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fails: needs"), std::string::npos) << r.out;
}

TEST(SearchCli, UnknownGpuOrModelExitsTwoWithSuggestions) {
  auto r = run({"search", "--model", "llama3-8b", "--gpu", "h10", "--gpus", "8", "--global-batch", "8"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("h100"), std::string::npos) << r.err;
  r = run({"search", "--model", "llama3-8", "--gpu", "h100-sxm", "--gpus", "8", "--global-batch", "8"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("llama3-8b"), std::string::npos) << r.err;
  r = run({"search", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "8", "--global-batch", "8", "--objective",
           "speed"});
  EXPECT_EQ(r.code, 2);
}

}  // namespace
}  // namespace gpuplan
