// Closed-loop serving (fixed-concurrency benchmarks): how requests align with and without
// chunked prefill (docs/model/inference.md §5), each against a derivation from step costs.
#include <cmath>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "infer/batching.h"

namespace gpuplan {
namespace {

using testing::cat;

InferPlan loop_plan(std::int64_t in, std::int64_t out) {
  InferPlan p;
  p.tp = 1;
  p.weights = Precision::fp8;
  p.kv = Precision::fp8;
  p.input_len = in;
  p.output_len = out;
  p.mode = InferMode::concurrency;
  return p;
}

// TensorRT-LLM without context chunking, C = 4 prompts of 1,024 tokens: 4,096 ≤ the 8,192-token
// budget, so the four are admitted in one step, finish together and come back together
// (lockstep). TTFT = request overhead + one pure prefill step of 4 × 1,024 tokens; TPOT = a
// pure decode step of 4 sequences at the mean context 1,024 + 256; one lifetime is that
// prefill step plus 511 decode steps.
TEST(InferClosedLoop, LockstepWhenAllPromptsFitOneStep) {
  const Engine& e = cat().engine("tensorrt-llm-1.0");
  ASSERT_FALSE(e.chunked_prefill);
  const InferContext ctx = make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"), e);
  const InferPlan plan = loop_plan(1024, 512);
  const ServingPoint s = closed_loop(ctx, plan, 4, 1000);
  const StepCost prefill = step_cost(ctx, plan, {0, 1024 + 256, 4 * 1024, 1024});
  EXPECT_DOUBLE_EQ(s.first_wave_ttft_s, prefill.total_s);  // every wave is the first
  const StepCost decode = step_cost(ctx, plan, {4, 1024 + 256, 0, 0});
  EXPECT_DOUBLE_EQ(s.ttft_s, e.request_overhead_s + prefill.total_s);
  EXPECT_DOUBLE_EQ(s.tpot_s, decode.total_s);
  EXPECT_DOUBLE_EQ(s.output_tokens_per_s, 4 * 512 / (prefill.total_s + 511 * decode.total_s));
}

// C = 16 prompts of 1,024 = 16,384 tokens > the 8,192-token budget: the first wave needs two
// steps and the requests drift apart. The closed loop is then the continuous-batching steady
// state, whose reported TTFT is the benchmark's mean over 10 requests per slot, the first
// bunched: overhead + (first wave + 9 × steady) / 10.
TEST(InferClosedLoop, BeyondOneStepTheRequestsSpread) {
  const Engine& e = cat().engine("tensorrt-llm-1.0");
  const InferContext ctx = make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"), e);
  const InferPlan plan = loop_plan(1024, 512);
  const ServingPoint s = closed_loop(ctx, plan, 16, 1000);
  const ServingPoint c = continuous(ctx, plan, 16, 1000);
  EXPECT_DOUBLE_EQ(s.tpot_s, c.tpot_s);
  EXPECT_DOUBLE_EQ(s.ttft_s, e.request_overhead_s + (c.first_wave_ttft_s + 9 * c.steady_ttft_s) / 10);
  EXPECT_GT(c.first_wave_ttft_s, c.steady_ttft_s);
}

// The cohort a whole-prompt engine refills in one step (budget 8,192 tokens):
//   in 1,024, micro 128: the first wave admits min(128, 8192 / 1024) = 8 per step; in steady
//     state the refill step also carries 128 − 8 = 120 decodes, 8,192 − 120 = 8,072 tokens of
//     room, floor(8,072 / 1,024) = 7 prompts.
//   in 1,024, micro 4: all 4 in the first step; room 8,192 − 0: 4 (lockstep).
//   in 8,192, micro 4: one per step; room 8,192 − 3 = 8,189 < 8,192, but a prompt always runs: 1.
//   in 16,384 (longer than the budget): 1.
TEST(InferClosedLoop, CohortOfWholePromptEngines) {
  const Engine& e = cat().engine("tensorrt-llm-1.0");
  ASSERT_DOUBLE_EQ(e.max_num_batched_tokens, 8192);
  EXPECT_DOUBLE_EQ(closed_loop_cohort(e, 1024, 128), 7);
  EXPECT_DOUBLE_EQ(closed_loop_cohort(e, 1024, 4), 4);
  EXPECT_DOUBLE_EQ(closed_loop_cohort(e, 8192, 4), 1);
  EXPECT_DOUBLE_EQ(closed_loop_cohort(e, 16384, 4), 1);
}

// Whole-prompt engine beyond one step (C = 128 prompts of 1,024): the cohorts of the first wave
// persist, so a steady-state request's TTFT is the step that refills its cohort of 7 prompts
// (7 × 1,024 prefill tokens) while the other 121 sequences decode at the mean context.
TEST(InferClosedLoop, WholePromptCohortPersistsInSteadyState) {
  const Engine& e = cat().engine("tensorrt-llm-1.0");
  const InferContext ctx = make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"), e);
  const InferPlan plan = loop_plan(1024, 512);
  const ServingPoint c = continuous(ctx, plan, 128, 1000);
  const StepCost refill = step_cost(ctx, plan, {128 - 7, 1024 + 256, 7 * 1024, 1024});
  EXPECT_DOUBLE_EQ(c.steady_ttft_s, refill.total_s);
  EXPECT_DOUBLE_EQ(c.prefill.total_s, refill.total_s);
  // The refill step is heavier than one decode step of the spread steady state.
  EXPECT_GT(c.steady_ttft_s, c.step.total_s);
}

// Chunked prefill: the arrival waits the residual of the step in flight, E[T²] / (2·E[T]) over
// a lifetime's steps: 4 × (1,024 / chunk) heavy steps carrying a prompt, the rest of the 512
// pure decode steps, then its own prompt step. With equal steps the residual would be T / 2;
// heavy steps are more likely to be in flight, so it is above half the mean step.
TEST(InferClosedLoop, ChunkedPrefillWaitsTheResidualStep) {
  const Engine& e = cat().engine("vllm");
  const InferContext ctx = make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"), e);
  const InferPlan plan = loop_plan(1024, 512);
  const ServingPoint c = continuous(ctx, plan, 4, 1000);
  // Spread steady state: 512 steps, each 4 × 512 / 512 = 4 decodes; one prompt of 1,024 fits
  // the budget left (8,192 − 4), so chunk = 1,024 and 4 heavy steps per lifetime.
  const StepCost heavy = step_cost(ctx, plan, {4, 1024 + 256, 1024, 1024});
  const StepCost light = step_cost(ctx, plan, {4, 1024 + 256, 0, 0});
  const double h = heavy.total_s, l = light.total_s;
  const double residual = (4 * h * h + 508 * l * l) / (2 * (4 * h + 508 * l));
  EXPECT_NEAR(c.steady_ttft_s, residual + h, 1e-12);
  EXPECT_GT(residual, 0.5 * (4 * h + 508 * l) / 512);
}

// MoE expert traffic, prefill and decode apart. Mixtral (8 experts, top 2): 4 decodes hit
// 1 − 0.75^4 = 0.68359375 of the experts; a step with 1,024 prompt tokens too hits all of them
// (1 − 0.75^1028 ≈ 1). A calendar of 512 steps with 4 such heavy steps:
// (4 × 1 + 508 × 0.68359375) / 512 = 351.265625 / 512 = 0.686066.
TEST(InferClosedLoop, ExpertHitOfTheStepCalendar) {
  const InferContext ctx = make_infer_context(cat(), cat().model("mixtral-8x7b"), cat().gpu("h200-sxm"),
                                              cat().engine("vllm"));
  EXPECT_DOUBLE_EQ(expert_hit_fraction(ctx, 4), 0.68359375);
  EXPECT_NEAR(expert_hit_of_calendar(ctx, 4, 1024, 4, 512), 351.265625 / 512, 1e-12);
  EXPECT_DOUBLE_EQ(expert_hit_fraction(ctx, 0), 0.0);
  const InferContext dense = make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"),
                                                cat().engine("vllm"));
  EXPECT_DOUBLE_EQ(expert_hit_fraction(dense, 100), 0.0);
}

// The symptom: DeepSeek-V3 (256 experts, top 8) at C = 16 on 8 × H200. Spreading 8K
// prompts evenly puts 16 × 8 = 128 prompt tokens in every decode step, so it reads 98% of the
// experts instead of the 1 − (1 − 8/256)^16 = 40% its 16 decodes need, and TPOT rose with the
// prompt length. With prompts in steps of their own the steady step reads what the calendar
// reads, and TPOT from 1K to 8K prompts grows only by the heavy steps and the longer context.
TEST(InferClosedLoop, MoeDecodeExpertsDoNotGrowWithPromptLength) {
  const InferContext ctx = make_infer_context(cat(), cat().model("deepseek-v3"), cat().gpu("h200-sxm"),
                                              cat().engine("vllm"));
  InferPlan plan = loop_plan(8192, 1024);
  plan.tp = 8;
  const ServingPoint long_prompts = continuous(ctx, plan, 16, 1000);
  StepLoad spread{16, 8192 + 512, 16.0 * 8192 / 1024, 8192};
  const StepCost spread_step = step_cost(ctx, plan, spread);  // expert_hit from its 144 tokens
  EXPECT_LT(long_prompts.step.weight_bytes, 0.75 * spread_step.weight_bytes);
  plan.input_len = 1024;
  const ServingPoint short_prompts = continuous(ctx, plan, 16, 1000);
  EXPECT_LT(long_prompts.tpot_s / short_prompts.tpot_s, 1.3);
}

// Chunked prefill (vLLM V1) spreads the requests even when their prompts fit one step.
TEST(InferClosedLoop, ChunkedPrefillIsTheSpreadSteadyState) {
  const Engine& e = cat().engine("vllm");
  ASSERT_TRUE(e.chunked_prefill);
  const InferContext ctx = make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"), e);
  const InferPlan plan = loop_plan(1024, 512);
  const ServingPoint s = closed_loop(ctx, plan, 4, 1000);
  const ServingPoint c = continuous(ctx, plan, 4, 1000);
  EXPECT_DOUBLE_EQ(s.ttft_s, c.ttft_s);
  EXPECT_DOUBLE_EQ(s.ttft_s, e.request_overhead_s + (c.first_wave_ttft_s + 9 * c.steady_ttft_s) / 10);
  EXPECT_DOUBLE_EQ(s.tpot_s, c.tpot_s);
}

// Lockstep makes TTFT grow with concurrency (all prompts in one step) while a spread engine's
// stays near one prompt's prefill: the mechanism behind TensorRT-LLM's higher TTFT at C = 4.
TEST(InferClosedLoop, LockstepTtftGrowsWithConcurrency) {
  const InferContext ctx =
      make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"), cat().engine("tensorrt-llm-1.0"));
  const InferPlan plan = loop_plan(1024, 512);
  const ServingPoint c1 = closed_loop(ctx, plan, 1, 1000);
  const ServingPoint c4 = closed_loop(ctx, plan, 4, 1000);
  EXPECT_GT(c4.ttft_s - ctx.engine->request_overhead_s, 3 * (c1.ttft_s - ctx.engine->request_overhead_s));
}

}  // namespace
}  // namespace gpuplan
