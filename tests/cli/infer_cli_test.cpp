// gpuplan infer | validate inference, end to end in process.
#include <filesystem>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>
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
  // In-sample on the file the serving constants were fitted on (2026-11-24, issue 14 second
  // round): offline 7.6%, TTFT 10.4%, TPOT 4.8% (median; 9.4%, 20.6%, 10.5% before issue 14).
  // The bounds pin today's accuracy with a little room so that it cannot silently get worse.
  // 2026-11-26: +12 TensorRT-LLM GB200 offline rows (375); offline 8.4% with them.
  EXPECT_EQ(j["rows"].size(), 375u);
  EXPECT_EQ(j["holdout"].get<std::string>(), "in-sample");
  EXPECT_LE(j["by_metric"]["output_tokens_per_s_total"]["median_abs_error_pct"].get<double>(), 8.8);
  EXPECT_LE(j["by_metric"]["ttft_ms"]["median_abs_error_pct"].get<double>(), 11.0);
  EXPECT_LE(j["by_metric"]["tpot_ms"]["median_abs_error_pct"].get<double>(), 5.3);
  // The per-group table: (engine, GPU, precision, band, metric), e.g. trtllm on B200 at C = 4.
  bool found = false;
  for (const auto& g : j["by_group"]) {
    found = found || (g["engine"] == "trtllm" && g["gpu"] == "b200" && g["precision"] == "fp4" &&
                      g["band"] == "c<=8" && g["metric"] == "tpot_ms" && g["rows"] == 8);
  }
  EXPECT_TRUE(found);
}

// The headline: each GPU's rows predicted with the constants refit without them. 2026-11-24
// (second round): offline 7.9%, TTFT 10.4%, TPOT 7.6% (median; targets 12%), and no engine ×
// GPU × metric group worse than 25% (the worst: trtllm B200 TPOT, 22.6%). 2026-11-26, with the
// 12 new GB200 offline rows in the refit: 8.5% / 11.6% / 8.4%, and vLLM B200 TTFT 26.2% held out
// (the one group above 25%, bounded at 27% below until the serving issues fix it). 2026-11-27,
// the trtllm rows' launch (batch waiting, drawn lengths): the same medians; trtllm B200 TTFT
// 19.5% -> 15.8%, trtllm B200 TPOT 22.6% -> 24.2% (docs/validation.md). 2026-11-27 (fourth round):
// trtllm weights at the measured HBM read rate and Azure's 1,000-request cap: 7.3% / 11.2% / 7.5%,
// trtllm B200 TPOT 18.1%, vLLM B200 TTFT 24.5%: every group now within 25%.
TEST(InferCli, ValidateInferenceLeaveOneGpuOut) {
  const std::string file = testing::source_dir() + "/../shared/data/inference-runs.csv";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "no " << file;
  const auto r = run({"validate", "inference", file, "--leave-one-gpu-out", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["holdout"].get<std::string>(), "leave-one-GPU-out");
  EXPECT_EQ(j["folds"].size(), 7u);  // H200, H100, GH200, L40S, A100, B200, GB200
  EXPECT_LE(j["by_metric"]["output_tokens_per_s_total"]["median_abs_error_pct"].get<double>(), 8.9);
  EXPECT_LE(j["by_metric"]["ttft_ms"]["median_abs_error_pct"].get<double>(), 12.0);
  EXPECT_LE(j["by_metric"]["tpot_ms"]["median_abs_error_pct"].get<double>(), 8.0);
  std::map<std::string, std::vector<double>> groups;  // engine | GPU | metric → |error|
  for (const auto& row : j["rows"]) {
    const std::string key = row["engine"].get<std::string>() + " | " + row["gpu"].get<std::string>() + " | " +
                            row["metric"].get<std::string>();
    groups[key].push_back(std::abs(row["error"].get<double>()));
  }
  for (auto& [key, errors] : groups) {
    std::sort(errors.begin(), errors.end());
    const std::size_t n = errors.size();
    const double median = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
    EXPECT_LE(median, 0.25) << key;
  }
  // Both held-out modes at once are two questions: exit 2 naming the flags.
  const auto both = run({"validate", "inference", file, "--leave-one-gpu-out", "--leave-one-source-out"});
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("--leave-one-gpu-out and --leave-one-source-out"), std::string::npos) << both.err;
}

// The held-out MoE serving file (docs/validation.md, "Held-out MoE serving runs"): published runs
// no constant was fitted on. Every row is read and predicted (none refused: FP4 on Hopper is
// weight-only); the dense control rows (Llama 3.3 70B, the same page and release) stay within
// the shared file's accuracy; the MoE rows are bounded at the measured median, so that a
// change making them worse fails here (the issue's target, 15%, is not met yet). About 40 s of
// CPU (the finite runs' simulations, 1,000 to 12,000 requests per row): label `slow`.
TEST(InferCli, ValidateMoeHeldoutFile) {
  const std::string file = testing::source_dir() + "/data/validation/moe-serving-heldout.csv";
  const auto r = run({"validate", "inference", file, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rows"].size(), 116u);
  EXPECT_EQ(j["skipped"].get<int>(), 0);
  std::vector<double> dense, moe;
  for (const auto& row : j["rows"]) {
    ASSERT_TRUE(row["error"].is_number()) << row["id"];
    (row["model"].get<std::string>() == "llama3.3-70b" ? dense : moe).push_back(std::abs(row["error"].get<double>()));
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  ASSERT_EQ(dense.size(), 17u);
  EXPECT_LE(median(dense), 0.06);  // 4.8% (5.8% before CUDA-graph padding, 6.5% before the finite request count)
  // 21.7% on 2026-11-27 with the launch's CUDA-graph padding (23.6% without, 32.0% without the
  // finite runs). The executor's host time per sequence (5.9 us, tenth session) moves no row.
  // 18.4% on 2026-11-28 with the attention math at the attention layer's precision (gpt-oss's
  // 16-bit attention over an FP8 KV cache, twelfth session).
  EXPECT_LE(median(moe), 0.19);
  // Every TensorRT-LLM row states its dataset (num_requests) and is scored as that finite run,
  // a factor in (0, 1] up to the simulation's rounding, except where the dataset never fills the
  // steady state's batch and that batch pads far more than the run's own: DeepSeek H200 DEP8 at
  // 1K/1K runs 3,000 requests, 375 per rank padded to 384, while the steady state's 569 per rank
  // pad to 1,024 (factor 1.16-1.17; infer/graph_padding.h). The GPUStack rows state none.
  int finite = 0;
  for (const auto& row : j["rows"]) {
    if (!row.contains("finite_run_factor")) continue;
    ++finite;
    EXPECT_GT(row["finite_run_factor"].get<double>(), 0.5) << row["id"];
    const bool dsv3_h200_1k = row["id"].get<std::string>().rfind("TRT1x-deepseek-v3-h200-sxm-dep8-10", 0) == 0;
    EXPECT_LT(row["finite_run_factor"].get<double>(), dsv3_h200_1k ? 1.2 : 1.01) << row["id"];
  }
  EXPECT_EQ(finite, 106);
}

}  // namespace
}  // namespace gpuplan
