// The executor's host time per sequence (Engine::host_per_seq_s, docs/model/inference.md "Host
// time per sequence"): overlapped with the GPU, so a step takes max(GPU time, host time), each
// case against a hand derivation.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "infer/sim_engine.h"
#include "infer/step.h"
#include "infer_test_util.h"

namespace gpuplan {
namespace {

using testing::cat;

InferPlan one_gpu_plan() { return testing::fp8_plan(1024, 1024, InferPlan{}.mode); }

// Llama-3 8B on one H100 with a copy of TensorRT-LLM 1.x: the same step without the host term
// is the GPU time; with 1 ms per sequence 200 decodes take 200 ms of host time, far above the
// GPU's step, so the step is exactly 0.2 s and the GPU waits 0.2 s − its own time; with 1 us per
// sequence (0.2 ms) the host hides under the GPU step and nothing changes.
TEST(HostTime, StepTakesTheLongerOfGpuAndHostHandChecked) {
  Engine e = cat().engine("tensorrt-llm-1.0");
  e.host_per_seq_s = 0;
  InferContext ctx = make_infer_context(cat(), cat().model("llama3-8b"), cat().gpu("h100-sxm"), e);
  ctx.engine = &e;
  const StepLoad load{200, 1024, 0, 0};
  const StepCost gpu = step_cost(ctx, one_gpu_plan(), load);
  EXPECT_EQ(gpu.host_s, 0);
  EXPECT_EQ(gpu.host_wait_s, 0);
  ASSERT_LT(gpu.total_s, 0.2);

  e.host_per_seq_s = 1e-3;
  const StepCost bound = step_cost(ctx, one_gpu_plan(), load);
  EXPECT_DOUBLE_EQ(bound.host_s, 0.2);
  EXPECT_DOUBLE_EQ(bound.total_s, 0.2);
  EXPECT_DOUBLE_EQ(bound.host_wait_s, 0.2 - gpu.total_s);

  e.host_per_seq_s = 1e-6;
  const StepCost hidden = step_cost(ctx, one_gpu_plan(), load);
  EXPECT_DOUBLE_EQ(hidden.host_s, 200e-6);
  EXPECT_LT(hidden.host_s, gpu.total_s);
  EXPECT_EQ(hidden.host_wait_s, 0);
  EXPECT_EQ(hidden.total_s, gpu.total_s);
}

// A step's sequences are its decodes and its prompts: 100 decodes and 2,048 prompt tokens of
// 1,024-token prompts are 102 sequences, 102 × 10 us = 1.02 ms. Under attention DP each rank's
// executor handles its own requests: 400 decodes over 4 ranks are 100 on the busiest, 1 ms.
TEST(HostTime, SequencesOfTheBusiestExecutorHandChecked) {
  Engine e = cat().engine("tensorrt-llm-1.0");
  e.host_per_seq_s = 10e-6;
  InferPlan plan = one_gpu_plan();
  EXPECT_DOUBLE_EQ(step_host_s(e, plan, {100, 1024, 2048, 1024}), 102 * 10e-6);
  plan.tp = 4;
  plan.ep = 4;
  plan.attention_dp = 4;
  EXPECT_DOUBLE_EQ(step_host_s(e, plan, {400, 1024, 0, 0}), 100 * 10e-6);
  e.host_per_seq_s = 0;
  EXPECT_EQ(step_host_s(e, plan, {400, 1024, 0, 0}), 0);
}

// The scheduler simulation's memo costs a step as step_cost does, host term included.
TEST(HostTime, SimulationMemoAgreesWithTheStep) {
  Engine e = cat().engine("tensorrt-llm-1.0");
  e.host_per_seq_s = 1e-3;
  InferContext ctx = make_infer_context(cat(), cat().model("llama3-8b"), cat().gpu("h100-sxm"), e);
  ctx.engine = &e;
  const InferPlan plan = one_gpu_plan();
  SimStepMemo memo(ctx, plan);
  EXPECT_DOUBLE_EQ(memo.step_s(200, 1024, 0, 0), step_cost(ctx, plan, {200, 1024, 0, 0}).total_s);
  EXPECT_DOUBLE_EQ(memo.step_s(200, 1024, 0, 0), 0.2);
}

// The catalog's TensorRT-LLM PyTorch-backend entries carry the sampler's measured share (NVIDIA/
// TensorRT-LLM PR #11983: 5.9 ms at batch 1,000), the engines without a source none.
TEST(HostTime, CatalogValues) {
  EXPECT_DOUBLE_EQ(cat().engine("tensorrt-llm-1.0").host_per_seq_s, 5.9e-6);
  EXPECT_DOUBLE_EQ(cat().engine("trtllm").host_per_seq_s, 5.9e-6);
  EXPECT_EQ(cat().engine("vllm").host_per_seq_s, 0);
  EXPECT_EQ(cat().engine("tensorrt-llm").host_per_seq_s, 0);
}

}  // namespace
}  // namespace gpuplan
