// gpuplan infer | validate inference, end to end in process.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

TEST(InferCli, JsonHasTheIssueKeys) {
  const auto r = run({"infer", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--tp", "4", "--weights", "fp8",
                      "--input-len", "1024", "--output-len", "256", "--concurrency", "32", "--engine",
                      "tensorrt-llm", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"ttft_s", "tpot_s", "output_tokens_per_s", "output_tokens_per_s_per_gpu", "requests_per_s",
                          "memory_per_gpu", "bottleneck", "usd_per_million_output_tokens"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_TRUE(j["feasible"].get<bool>());
  EXPECT_EQ(j["memory_per_gpu"]["budget_rule"].get<std::string>(), "free_fraction");
}

TEST(InferCli, InfeasibleIsAValueAndBadInputExits2) {
  auto r = run({"infer", "--model", "llama3-70b", "--gpu", "h200-sxm", "--weights", "bf16"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("infeasible:"), std::string::npos) << r.out;
  r = run({"infer", "--model", "llama3-8b", "--gpu", "h100-sxm", "--engine", "tgi"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("known engines: tensorrt-llm, tensorrt-llm-1.0, trtllm, vllm, vllm-v0, sglang"), std::string::npos) << r.err;
  EXPECT_EQ(run({"infer", "--model", "llama3-8b", "--gpu", "h100-sxm", "--weights", "fp7"}).code, 2);
  EXPECT_EQ(run({"infer", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "3", "--tp", "2"}).code, 2);
}

TEST(InferCli, ValidateInferenceOnTheSharedFile) {
  const std::string file = testing::source_dir() + "/../shared/data/inference-runs.csv";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "no " << file;
  const auto r = run({"validate", "inference", file, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // What the model reaches on the file as of 2026-11-23 (363 rows; +124 in regimes it was not
  // fitted on): offline 9.4%, TTFT 20.6%, TPOT 10.5% (median). The serving-fidelity issue raises
  // these; until then the bounds pin today's accuracy so that it cannot silently get worse.
  EXPECT_EQ(j["rows"].size(), 363u);
  EXPECT_LE(j["by_metric"]["output_tokens_per_s_total"]["median_abs_error_pct"].get<double>(), 10.0);
  EXPECT_LE(j["by_metric"]["ttft_ms"]["median_abs_error_pct"].get<double>(), 21.0);
  EXPECT_LE(j["by_metric"]["tpot_ms"]["median_abs_error_pct"].get<double>(), 11.0);
}

}  // namespace
}  // namespace gpuplan
