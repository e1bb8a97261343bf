// CUDA-graph padding of pure-decode steps (infer/graph_padding.h, docs/model/inference.md §4
// "CUDA-graph padding"), each case against a hand derivation.
#include "infer/graph_padding.h"

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "infer/batching.h"
#include "infer/step.h"
#include "infer_test_util.h"

namespace gpuplan {
namespace {

using testing::cat;

// TensorRT-LLM's performance-overview list: a step of 1,528 decodes replays the graph of 2,048,
// one of 2,048 its own, one of 300 that of 384; beyond the largest size (or with no sizes) no
// graph runs and nothing is padded.
TEST(GraphPadding, NextCapturedSizeHandChecked) {
  const std::vector<double> sizes{1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048};
  EXPECT_EQ(graph_padded_batch(sizes, 1528), 2048);
  EXPECT_EQ(graph_padded_batch(sizes, 2048), 2048);
  EXPECT_EQ(graph_padded_batch(sizes, 300), 384);
  EXPECT_EQ(graph_padded_batch(sizes, 3), 4);
  EXPECT_EQ(graph_padded_batch(sizes, 3000), 3000);
  EXPECT_EQ(graph_padded_batch({}, 300), 300);
}

// Llama-3 8B on one H100, TensorRT-LLM 1.x with sizes [256, 512]: 300 decodes at 1,024 cached
// tokens pad to 512 rows that read the same 300 × 1,024 cached keys in all (512 rows at a mean of
// 600: the dummy rows' one token each left out), so the padded step reads the same KV bytes and
// runs 512 / 300 of the linear FLOPs; the term is light_share × (padded − unpadded step): with 3
// steps in 4 pure decodes, 0.75 × the difference, added to the mean step's total.
TEST(GraphPadding, PaddedStepAddsTokensNotKeysHandChecked) {
  Engine e = cat().engine("tensorrt-llm-1.0");
  e.cuda_graph_batch_sizes = {256, 512};
  InferContext ctx = make_infer_context(cat(), cat().model("llama3-8b"), cat().gpu("h100-sxm"), e);
  ctx.engine = &e;
  const InferPlan plan = testing::fp8_plan(1024, 1024, InferPlan{}.mode);
  const StepCost light = step_cost(ctx, plan, {300, 1024, 0, 0});
  const StepCost pad = step_cost(ctx, plan, {512, 300.0 * 1024 / 512, 0, 0});
  EXPECT_DOUBLE_EQ(pad.kv_bytes, light.kv_bytes);
  EXPECT_NEAR(pad.linear_flops / light.linear_flops, 512.0 / 300, 1e-9);
  ASSERT_GT(pad.total_s, light.total_s);

  const StepCost mean = with_graph_padding(ctx, plan, light, 300, 1024, 0.75);
  EXPECT_EQ(mean.graph_padded_decodes, 512);
  EXPECT_DOUBLE_EQ(mean.graph_padding_s, 0.75 * (pad.total_s - light.total_s));
  EXPECT_DOUBLE_EQ(mean.total_s, light.total_s + mean.graph_padding_s);

  // A captured size: nothing padded, the step unchanged; no sizes: the same.
  const StepCost exact = with_graph_padding(ctx, plan, step_cost(ctx, plan, {256, 1024, 0, 0}), 256, 1024, 1);
  EXPECT_EQ(exact.graph_padding_s, 0);
  EXPECT_EQ(exact.graph_padded_decodes, 0);
  e.cuda_graph_batch_sizes.clear();
  EXPECT_EQ(with_graph_padding(ctx, plan, light, 300, 1024, 1).total_s, light.total_s);
}

// Attention DP: each of the 4 ranks pads its own 300 decodes to 384, 1,536 rows in all.
TEST(GraphPadding, EachAttentionDpRankPadsItsOwnHandChecked) {
  Engine e = cat().engine("tensorrt-llm-1.0");
  e.cuda_graph_batch_sizes = {256, 384, 512};
  InferContext ctx = make_infer_context(cat(), cat().model("qwen3-30b-a3b"), cat().gpu("h200-sxm"), e);
  ctx.engine = &e;
  InferPlan plan = testing::fp8_plan(1024, 1024, InferPlan{}.mode);
  plan.tp = 4;
  plan.ep = 4;
  plan.attention_dp = 4;
  const StepCost light = step_cost(ctx, plan, {1200, 1024, 0, 0});
  const StepCost mean = with_graph_padding(ctx, plan, light, 1200, 1024, 1);
  EXPECT_EQ(mean.graph_padded_decodes, 1536);
  EXPECT_DOUBLE_EQ(mean.graph_padding_s,
                   step_cost(ctx, plan, {1536, 1200.0 * 1024 / 1536, 0, 0}).total_s - light.total_s);
}

// The steady state of 300 running 1,024/1,024 requests without chunked prefill: a lifetime of
// 1,024 steps, of which the prompt steps carry cohorts of 7 prompts (8 fit the 8,192-token
// budget at first; beside the 292 others' decodes 7,900 tokens are left, 7 prompts), 300 / 7 =
// 42.857 of them; the other 981.14 steps, a share 1 − 42.857 / 1,024 = 0.958147, pad their 300
// decodes (at the mean context 1,024 + 512) to 384.
TEST(GraphPadding, SteadyStatePadsItsPureDecodeStepsHandChecked) {
  Engine e = cat().engine("tensorrt-llm-1.0");
  e.cuda_graph_batch_sizes = {256, 384, 512};
  e.host_per_seq_s = 0;
  InferContext ctx = make_infer_context(cat(), cat().model("llama3-8b"), cat().gpu("h100-sxm"), e);
  ctx.engine = &e;
  const InferPlan plan = testing::fp8_plan(1024, 1024, InferPlan{}.mode);
  ASSERT_FALSE(e.chunked_prefill);
  ASSERT_EQ(e.max_num_batched_tokens, 8192);
  EXPECT_EQ(closed_loop_cohort(e, 1024, 300), 7);
  const ServingPoint s = continuous(ctx, plan, 300, 300);
  const double light_share = 1 - (300.0 / 7) / 1024;
  EXPECT_NEAR(light_share, 0.958147, 1e-6);
  const double pad = step_cost(ctx, plan, {384, 300.0 * 1536 / 384, 0, 0}).total_s;
  const double light = step_cost(ctx, plan, {300, 1536, 0, 0}).total_s;
  EXPECT_EQ(s.step.graph_padded_decodes, 384);
  EXPECT_NEAR(s.step.graph_padding_s, light_share * (pad - light), 1e-12);
  // The throughput is the lifetime's: 300 × 1,024 tokens over 1,024 mean steps.
  EXPECT_DOUBLE_EQ(s.output_tokens_per_s, 300 * 1024 / (1024 * s.step.total_s));
}

}  // namespace
}  // namespace gpuplan
