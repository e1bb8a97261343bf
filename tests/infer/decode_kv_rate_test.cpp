// Decode attention's KV read at a head dim under 128 (infer/decode_kv_rate.h,
// docs/model/inference.md §4 "Decode attention at a small head dim"), against hand arithmetic.
#include "infer/decode_kv_rate.h"

#include <gtest/gtest.h>

#include "infer/step.h"
#include "infer_test_util.h"

namespace gpuplan {
namespace {

// r = 0.869 measured: h0 = 128 × 0.131 / 0.738 = 22.7209 dims; at head dim 64 the factor is
// (86.7209 / 64) / (150.7209 / 128) = 1.35501 / 1.17751 = 1.15075 (= 1 / 0.869 by construction);
// at 32, (54.7209 / 32) / 1.17751 = 1.71003 / 1.17751 = 1.45224; 128, 256 and MLA: 1.
TEST(DecodeKvRate, FactorHandChecked) {
  EXPECT_NEAR(decode_kv_extra_dims(), 22.7209, 1e-4);
  EXPECT_NEAR(decode_kv_time_factor(64, false), 1.15075, 1e-5);
  EXPECT_NEAR(decode_kv_time_factor(64, false), 1.0 / 0.869, 1e-12);
  EXPECT_NEAR(decode_kv_time_factor(32, false), 1.45224, 1e-5);
  EXPECT_EQ(decode_kv_time_factor(128, false), 1.0);
  EXPECT_EQ(decode_kv_time_factor(256, false), 1.0);
  EXPECT_EQ(decode_kv_time_factor(64, true), 1.0);
}

// gpt-oss-20b (head dim 64) on one H100, 985 decodes at 1,500 cached tokens, no prompt: the
// decodes' KV read takes 1.15075 × its bandwidth time, so the added term is 0.15075 × (kv_mem_s −
// the term) and kv_mem_s − the term is the bytes over the bandwidth as before. Llama-3 8B (head dim
// 128) adds nothing.
TEST(DecodeKvRate, StepChargesTheDecodesKvReadHandChecked) {
  InferContext ctx = testing::infer_context("gpt-oss-20b", "h100-sxm", "tensorrt-llm-1.0");
  InferPlan plan = testing::fp8_plan(1000, 1000, InferPlan{}.mode);
  plan.weights = Precision::fp4;
  plan.kv = Precision::bf16;
  const StepCost c = step_cost(ctx, plan, {985, 1500, 0, 0});
  ASSERT_GT(c.kv_bytes, 0);
  EXPECT_NEAR(c.kv_head_dim_factor, 1.15075, 1e-5);
  const double plain_s = c.kv_mem_s - c.kv_head_dim_s;
  EXPECT_NEAR(c.kv_head_dim_s, (1.0 / 0.869 - 1.0) * plain_s, 1e-12);
  EXPECT_NEAR(c.kv_head_dim_s / plain_s, 0.150748, 1e-6);

  const InferContext llama = testing::infer_context("llama3-8b", "h100-sxm", "tensorrt-llm-1.0");
  const StepCost d = step_cost(llama, testing::fp8_plan(1000, 1000, InferPlan{}.mode), {985, 1500, 0, 0});
  EXPECT_EQ(d.kv_head_dim_factor, 1.0);
  EXPECT_EQ(d.kv_head_dim_s, 0.0);
}

}  // namespace
}  // namespace gpuplan
