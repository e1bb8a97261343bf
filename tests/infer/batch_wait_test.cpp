// Batch waiting (infer/batch_wait.h): the closed-form mean hold, each case worked by hand, and the
// closed form's use of it next to a plain steady state.
#include "infer/batch_wait.h"

#include <gtest/gtest.h>

#include <cmath>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "infer/batching.h"
#include "infer/evaluate.h"
#include "infer/step.h"

namespace gpuplan {
namespace {

const BatchWait kLaunchWait{20, 0.9};  // InferenceMAX's TensorRT-LLM 1K/1K launch

// Without decodes, or with either knob at 0, nothing is held (the engine releases at once).
TEST(BatchWait, NothingHeldWithoutDecodesOrWithAKnobAtZero) {
  EXPECT_EQ(batch_wait_steady(kLaunchWait, 16384, 1024, 0, 0.004).wait_steps, 0);
  EXPECT_EQ(batch_wait_steady(BatchWait{20, 0}, 16384, 1024, 4, 0.004).wait_steps, 0);
  EXPECT_EQ(batch_wait_steady(BatchWait{0, 0.9}, 16384, 1024, 4, 0.004).wait_steps, 0);
  EXPECT_GT(batch_wait_steady(kLaunchWait, 16384, 1024, 4, 0.004).group, 1);
  // A prompt that alone reaches 0.9 × 16,384 = 14,745.6 tokens: k = 1, no wait.
  const BatchWaitSteady big = batch_wait_steady(kLaunchWait, 16384, 15000, 4, 0.004);
  EXPECT_EQ(big.wait_steps, 0);
  EXPECT_EQ(big.group, 1);
}

// C = 4, 1,024-token outputs: about 4 / 1,024 prompts per step. k = ⌈(14,745.6 − 4) / 1,024⌉ =
// 15 prompts would release early, far more than the 20 × 0.0039 expected in a window, so the
// window is the 20-step timeout: the opener waits 20 steps, the 0.078 joiners 10 on average.
TEST(BatchWait, TimeoutWindowAtLowConcurrency) {
  const double lambda = 4.0 / 1024;
  const BatchWaitSteady s = batch_wait_steady(kLaunchWait, 16384, 1024, 4, lambda);
  const double joiners = 20 * lambda;
  EXPECT_NEAR(s.wait_steps, (20 + joiners * 10) / (1 + joiners), 1e-12);
  EXPECT_NEAR(s.group, 1 + joiners, 1e-12);
  EXPECT_GT(s.wait_steps, 19.2);
}

// Two prompts per step into 128 decodes: k = ⌈(14,745.6 − 128) / 1,024⌉ = ⌈14.27⌉ = 15, and the
// 40 expected in 20 steps exceed the 14 joiners needed, so the window is 14 / 2 = 7 steps: the
// opener waits 7, the 14 joiners 3.5 on average, (7 + 14 × 3.5) / 15 = 56 / 15 steps, 15 released.
TEST(BatchWait, TokenThresholdWindowAtHighArrivalRate) {
  const BatchWaitSteady s = batch_wait_steady(kLaunchWait, 16384, 1024, 128, 2);
  EXPECT_NEAR(s.wait_steps, 56.0 / 15, 1e-12);
  EXPECT_NEAR(s.group, 15, 1e-12);
}

// The closed form: TensorRT-LLM at C = 4 with drawn lengths is not in lockstep; with the launch's
// batch waiting a new prompt's steady-state TTFT gains the mean hold in decode steps of the
// running set, and nothing else moves (TPOT and throughput are the same steady state).
TEST(BatchWait, ClosedFormAddsTheHoldToTheSteadyTtft) {
  const Catalog& c = testing::cat();
  InferContext ctx = make_infer_context(c, c.model("llama3.1-70b"), c.gpu("h200-sxm"), c.engine("trtllm"));
  InferPlan plan;
  plan.tp = 2;
  plan.weights = plan.kv = Precision::fp8;
  plan.input_len = plan.output_len = 1024;
  plan.mode = InferMode::concurrency;
  plan.load = 4;
  plan.lengths_vary = true;
  const ServingPoint plain = closed_loop(ctx, plan, 4, 4);
  Engine waiting = *ctx.engine;
  waiting.batch_wait = kLaunchWait;
  ctx.engine = &waiting;
  const ServingPoint held = closed_loop(ctx, plan, 4, 4);
  EXPECT_EQ(plain.batch_wait_s, 0);
  ASSERT_GT(held.batch_wait_s, 0);
  const double steps = 1024;  // out ≥ micro·(in + out) / budget: one token per step
  const BatchWaitSteady s = batch_wait_steady(kLaunchWait, waiting.max_num_batched_tokens, 1024, 4, 4 / steps);
  const double decode_s = step_cost(ctx, plan, {4, 1024 + 512, 0, 0}).total_s;
  EXPECT_NEAR(held.batch_wait_s, s.wait_steps * decode_s, 1e-12);
  EXPECT_NEAR(held.tpot_s, plain.tpot_s, 1e-15);
  // TTFT moves by 9 steady waves in 10 (the first wave is sent together, with nothing decoding).
  EXPECT_NEAR(held.ttft_s - plain.ttft_s,
              0.9 * held.batch_wait_s + 0.9 * (held.prefill.total_s - plain.prefill.total_s), 1e-9);
  // Equal lengths stay in lockstep: replacements arrive together with nothing decoding, so no hold.
  plan.lengths_vary = false;
  EXPECT_EQ(closed_loop(ctx, plan, 4, 4).batch_wait_s, 0);
}

}  // namespace
}  // namespace gpuplan
