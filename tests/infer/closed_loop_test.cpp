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
  const Engine& e = cat().engine("trtllm");
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
  const Engine& e = cat().engine("trtllm");
  const InferContext ctx = make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"), e);
  const InferPlan plan = loop_plan(1024, 512);
  const ServingPoint s = closed_loop(ctx, plan, 16, 1000);
  const ServingPoint c = continuous(ctx, plan, 16, 1000);
  EXPECT_DOUBLE_EQ(s.tpot_s, c.tpot_s);
  EXPECT_DOUBLE_EQ(s.ttft_s, e.request_overhead_s + (c.first_wave_ttft_s + 9 * c.steady_ttft_s) / 10);
  EXPECT_GT(c.first_wave_ttft_s, c.steady_ttft_s);
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
      make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"), cat().engine("trtllm"));
  const InferPlan plan = loop_plan(1024, 512);
  const ServingPoint c1 = closed_loop(ctx, plan, 1, 1000);
  const ServingPoint c4 = closed_loop(ctx, plan, 4, 1000);
  EXPECT_GT(c4.ttft_s - ctx.engine->request_overhead_s, 3 * (c1.ttft_s - ctx.engine->request_overhead_s));
}

}  // namespace
}  // namespace gpuplan
