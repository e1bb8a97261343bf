// Attention DP with unco-ordinated prompt arrivals (infer/attention_dp_spread.h,
// docs/model/attention-dp.md §6): the expected busiest rank's prompts by hand, its bounds, and
// the step and report that name it.
#include "infer/attention_dp_spread.h"

#include <gtest/gtest.h>

#include "infer/batching.h"
#include "infer/evaluate.h"
#include "infer/step.h"
#include "infer_test_util.h"
#include "report/infer_report.h"

namespace gpuplan {
namespace {

// E[max of 2 Poisson(0.5)] = Σ_k (1 − F(k)²), F(0) = e^−0.5 = 0.606531, F(1) = 1.5 F(0) =
// 0.909796, F(2) = F(1) + 0.125 F(0) = 0.985612, F(3) = 0.998248, F(4) = 0.999828:
//   0.632121 + 0.172271 + 0.028569 + 0.003501 + 0.000344 + 0.000031 (the tail) = 0.836837.
// Two ranks each prefilling half a prompt per step on average: the step waits for 0.84 prompts,
// not the mean 0.5 nor both prompts (1).
TEST(AttentionDpSpread, ExpectedMaxPoissonHandChecked) {
  EXPECT_NEAR(expected_max_poisson(0.5, 2), 0.836837, 2e-6);
  // n = 1: the mean itself; no prompts: none.
  EXPECT_DOUBLE_EQ(expected_max_poisson(0.7, 1), 0.7);
  EXPECT_DOUBLE_EQ(expected_max_poisson(0, 8), 0);
  // A large mean (no underflow of e^−mean): about mean + sqrt(mean) × E[max of 4 standard
  // normals] (1.0294): 300 + 17.32 × 1.0294 = 317.8 (the Poisson's skew adds a little).
  EXPECT_NEAR(expected_max_poisson(300, 4), 317.8, 0.3);
}

// Bounds: the busiest rank has at least the mean share (prompts / dp) and at most all the
// prompts of the step; more prompts never make it lighter.
TEST(AttentionDpSpread, BusiestRankBetweenMeanShareAndAll) {
  for (int dp : {2, 4, 8, 32}) {
    double last = 0;
    for (double prompts : {0.01, 0.1, 0.6, 1.0, 2.7, 8.0, 40.0, 500.0}) {
      const double b = busiest_rank_spread_prompts(prompts, dp);
      EXPECT_GE(b, prompts / dp - 1e-12) << dp << " " << prompts;
      EXPECT_LE(b, prompts + 1e-12) << dp << " " << prompts;
      EXPECT_GE(b, last);
      last = b;
    }
  }
  EXPECT_DOUBLE_EQ(busiest_rank_spread_prompts(2.5, 1), 2.5);
}

// A steady state's mean step of 4 prompts of 1,024 tokens over 8 ranks: 0.5 prompts per rank,
// E[max of 8 Poisson(0.5)] = 0.981684 + 0.530590 + 0.109469 + 0.013927 + 0.001376 + 0.000113 +
// (tail 0.000009) = 1.637169 prompts = 1,676.5 tokens on the busiest rank. The same 4 prompts
// fixed in one step (a first wave, a cohort) put one whole prompt on each of 4 ranks: 1,024.
TEST(AttentionDpSpread, SlowestRankOfSpreadPromptsHandChecked) {
  StepLoad spread{0, 0, 4096, 1024};
  spread.spread_prompts = true;
  EXPECT_NEAR(slowest_attention_dp_rank(spread, 8).prefill_tokens, 1.637169 * 1024, 0.01);
  EXPECT_DOUBLE_EQ(slowest_attention_dp_rank({0, 0, 4096, 1024}, 8).prefill_tokens, 1024);
  // Without attention DP nothing changes.
  EXPECT_DOUBLE_EQ(slowest_attention_dp_rank(spread, 1).prefill_tokens, 4096);
}

// The steady state of a DEP plan names the busiest rank's prompt tokens in its step (text and
// JSON), and they are what the step's rule gives for that step's load; a TP plan names none.
TEST(AttentionDpSpread, ContinuousStepNamesBusiestRank) {
  const InferContext ctx = testing::infer_context("deepseek-v3", "h200-sxm", "tensorrt-llm-1.0");
  InferPlan p;
  p.tp = 8;
  p.ep = 8;
  p.attention_dp = 8;
  p.weights = Precision::fp8;
  p.kv = Precision::fp8;
  p.input_len = 1024;
  p.output_len = 1024;
  p.mode = InferMode::max_throughput;
  const ServingPoint s = continuous(ctx, p, 2048, 2048);
  // 2,048 running, 1,024 steps per lifetime (the budget allows it): 2 prompts per step, 0.25 per
  // rank: E[max of 8 Poisson(0.25)] prompts on the busiest rank.
  EXPECT_NEAR(s.step.adp_mean_prefill_tokens, 2048.0 / 8, 1e-9);
  EXPECT_NEAR(s.step.adp_busiest_prefill_tokens, 1024 * expected_max_poisson(0.25, 8), 1e-6);
  EXPECT_GT(s.step.adp_busiest_prefill_tokens, s.step.adp_mean_prefill_tokens);
  // The offline estimate's step, and the report naming it.
  const InferEstimate e = evaluate_inference(ctx, p);
  ASSERT_TRUE(e.feasible);
  const StepCost& c = e.point.step;
  const double prompts = c.adp_mean_prefill_tokens * 8 / 1024;
  EXPECT_NEAR(c.adp_busiest_prefill_tokens, 1024 * expected_max_poisson(prompts / 8, 8), 1e-6);
  const auto j = infer_json(ctx, p, e);
  EXPECT_NEAR(j["decode_step"]["attention_dp_prefill"]["busiest_rank_tokens"].get<double>(),
              c.adp_busiest_prefill_tokens, 1e-9);
  EXPECT_NE(infer_text(ctx, p, e).find("attention DP: the busiest rank prefills"), std::string::npos);
  p.attention_dp = 1;
  const ServingPoint tp = continuous(ctx, p, 2048, 2048);
  EXPECT_DOUBLE_EQ(tp.step.adp_busiest_prefill_tokens, tp.step.adp_mean_prefill_tokens);
}

}  // namespace
}  // namespace gpuplan
