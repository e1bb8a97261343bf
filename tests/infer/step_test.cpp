// One engine step: the terms added after the first validation (replicated elementwise traffic,
// the custom AllReduce's one-shot/two-shot byte counts, the smooth roofline knee), each against
// a hand derivation.
#include <cmath>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/error.h"
#include "infer/step.h"

namespace gpuplan {
namespace {

using testing::cat;

InferPlan tp_plan(int tp) {
  InferPlan p;
  p.tp = tp;
  p.weights = Precision::fp8;
  p.kv = Precision::fp8;
  p.input_len = 1024;
  p.output_len = 1024;
  return p;
}

// Llama-3 8B: hidden 4,096, 32 heads and 8 KV heads of 128, SwiGLU 14,336, 32 layers.
// Per token and layer, in 16-bit elements:
//   two fused residual+RMSNorm passes, read x and residual, write both: 8 × 4,096 = 32,768
//   RoPE, read and write q and k: 2 × (32 + 8) × 128 / tp               = 10,240 / tp
//   SwiGLU, read gate and up, write the product: 3 × 14,336 / tp       = 43,008 / tp
// TP 1: 86,016 elements × 2 B × 32 layers = 5,505,024 B per token.
// TP 2: (32,768 + 5,120 + 21,504) × 2 × 32 = 3,801,088 B: the norms do not shrink.
TEST(InferStep, ElementwiseBytesPerTokenHandChecked) {
  const InferContext ctx = make_infer_context(cat(), cat().model("llama3-8b"), cat().gpu("h100-sxm"),
                                              cat().engine("tensorrt-llm"));
  const StepLoad load{1000, 1024, 0, 0};
  const StepCost tp1 = step_cost(ctx, tp_plan(1), load);
  EXPECT_DOUBLE_EQ(tp1.elementwise_bytes, 1000 * 5'505'024.0);
  const StepCost tp2 = step_cost(ctx, tp_plan(2), load);
  EXPECT_DOUBLE_EQ(tp2.elementwise_bytes, 1000 * 3'801'088.0);
  EXPECT_GT(tp2.elementwise_bytes, tp1.elementwise_bytes / 2);
  EXPECT_DOUBLE_EQ(tp1.elementwise_s,
                   tp1.elementwise_bytes / (ctx.gpu->memory_bw_bytes_per_s * ctx.engine->bw_fraction));
}

// Mixtral 8x7B: hidden 4,096, 8 experts, top-2, expert SwiGLU 14,336, 32 layers, 32/8 heads.
// MoE layers add the permutes, (2 + 2·2) × 4,096 = 24,576, and run the activation on k = 2
// experts: 2 × 3 × 14,336 = 86,016. Per layer at TP 1: 32,768 + 10,240 + 86,016 + 24,576
// = 153,600 elements → × 2 B × 32 layers = 9,830,400 B per token.
TEST(InferStep, MoePermutesAreCounted) {
  const InferContext ctx = make_infer_context(cat(), cat().model("mixtral-8x7b"), cat().gpu("h100-sxm"),
                                              cat().engine("tensorrt-llm"));
  const StepCost c = step_cost(ctx, tp_plan(1), {10, 512, 0, 0});
  EXPECT_DOUBLE_EQ(c.elementwise_bytes, 10 * 9'830'400.0);
}

// The custom AllReduce cannot beat its own byte count: one-shot moves (n−1)·bytes into each GPU,
// two-shot 2(n−1)/n·bytes. At 32 MiB on 8 GPUs that is at least 1.75 × 32 MiB over the link.
TEST(InferStep, CustomAllReduceNeverBeatsTwoShotBytes) {
  const InferContext ctx = make_infer_context(cat(), cat().model("llama3.1-70b"), cat().gpu("h100-sxm"),
                                              cat().engine("tensorrt-llm"), &cat().system("dgx-h100"));
  ASSERT_TRUE(ctx.topology.has_value());
  const double link = ctx.topology->levels[0].bw_bytes_per_s;
  const double big = 32.0 * 1024 * 1024;
  EXPECT_GE(tp_collective_s(ctx, CollectiveOp::all_reduce, big, 8), 1.75 * big / link);
  // Small messages: one barrier and (n−1) reads of a tiny buffer.
  const double small = 16.0 * 1024;
  const double one_shot = ctx.engine->allreduce_latency_s + 7 * small / link;
  EXPECT_LE(tp_collective_s(ctx, CollectiveOp::all_reduce, small, 8), one_shot * (1 + 1e-12));
  // Two GPUs: one-shot and two-shot both move one buffer.
  EXPECT_NEAR(tp_collective_s(ctx, CollectiveOp::all_reduce, small, 2),
              std::min(ctx.engine->allreduce_latency_s + small / link,
                       tp_collective_s(ctx, CollectiveOp::all_reduce, small, 2)),
              1e-12);
}

// roofline_norm 2: the linear layers take hypot(t_mem, t_flops); without it, the ideal max.
TEST(InferStep, RooflineNormSmoothsTheKnee) {
  Engine smooth = cat().engine("tensorrt-llm");
  smooth.roofline_norm = 2;
  Engine sharp = smooth;
  sharp.roofline_norm = 0;
  const ModelSpec& m = cat().model("llama3-8b");
  const Gpu& gpu = cat().gpu("h100-sxm");
  const StepLoad load{300, 1024, 0, 0};
  const StepCost a = step_cost(make_infer_context(cat(), m, gpu, smooth), tp_plan(1), load);
  const StepCost b = step_cost(make_infer_context(cat(), m, gpu, sharp), tp_plan(1), load);
  EXPECT_DOUBLE_EQ(a.linear_s, std::hypot(a.linear_mem_s, a.linear_compute_s));
  EXPECT_DOUBLE_EQ(b.linear_s, std::max(b.linear_mem_s, b.linear_compute_s));
  EXPECT_GT(a.total_s, b.total_s);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// A roofline_norm below 1 would make a layer faster than its slower half: refused, naming the key.
TEST(InferStep, RooflineNormBelowOneIsRefused) {
  const std::string text = R"(kind = "engine"
id = "test-engine"
name = "Test"
source = "unit test"
retrieved = "2026-11-22"
[memory]
budget_rule = "total_fraction"
memory_fraction = 0.9
kv_block_tokens = 16
[scheduler]
max_num_seqs = 256
max_num_batched_tokens = 8192
[performance]
bw_fraction = 0.85
roofline_norm = 0.5
)";
  Catalog c;
  try {
    load_catalog_text(c, text, "engine.toml", false);
    FAIL() << "accepted roofline_norm = 0.5";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("roofline_norm"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(">= 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// An engine's own AllReduce rule as data (vLLM's custom_all_reduce.cuh thresholds): on 8 GPUs
// one-shot below 256 KiB, latency + (n−1)·bytes / link; two-shot from there up to 8 MiB,
// 2·latency + 2(n−1)/n·bytes / link; NCCL (the collective model) from 8 MiB on, and beyond 8 GPUs.
TEST(InferStep, EngineAllReduceRuleFromData) {
  InferContext ctx = make_infer_context(testing::cat(), testing::cat().model("llama3-8b"),
                                        testing::cat().gpu("h100-sxm"), testing::cat().engine("vllm"));
  ASSERT_TRUE(ctx.topology.has_value());
  Engine rule = *ctx.engine;
  rule.allreduce_one_shot_max_bytes_4gpu = 512 * 1024;
  rule.allreduce_one_shot_max_bytes_8gpu = 256 * 1024;
  rule.allreduce_custom_max_bytes = 8 * 1024 * 1024;
  rule.allreduce_custom_max_gpus = 8;
  Engine nccl = *ctx.engine;
  nccl.allreduce_latency_s = 0;
  const double lat = rule.allreduce_latency_s;
  const double link = ctx.topology->levels[0].bw_bytes_per_s;
  ctx.engine = &rule;
  const double small = 128 * 1024, mid = 1024 * 1024, large = 16 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(tp_collective_s(ctx, CollectiveOp::all_reduce, small, 8), lat + small * 7 / link);
  EXPECT_DOUBLE_EQ(tp_collective_s(ctx, CollectiveOp::all_reduce, mid, 8), 2 * lat + mid * 2 * 7 / 8 / link);
  // Two GPUs: always one-shot, even at 1 MiB.
  EXPECT_DOUBLE_EQ(tp_collective_s(ctx, CollectiveOp::all_reduce, mid, 2), lat + mid / link);
  const double rule_large = tp_collective_s(ctx, CollectiveOp::all_reduce, large, 8);
  ctx.engine = &nccl;
  EXPECT_DOUBLE_EQ(rule_large, tp_collective_s(ctx, CollectiveOp::all_reduce, large, 8));
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// `trtllm` streams weights at the HBM read rate measured on our own H100 SXM and H200 SXM
// (data/engines/trtllm.toml; docs/validation.md, Inference, issue 30 fourth round): its
// bw_fraction is that measured share of the datasheet, 3,087 / 3,350 = 0.921 and
// 4,430 / 4,800 = 0.923, and a decode step reads every weight once at datasheet × 0.92.
// Llama 3.1 70B in FP8 by hand: per layer q 8,192² + k, v 2 × 8,192 × 1,024 + o 8,192²
// + gate, up, down 3 × 8,192 × 28,672 = 855,638,016 one-byte weights, × 80 layers
// = 68,451,041,280 B; the 16-bit head 128,256 × 8,192 × 2 = 2,101,346,304 B and norms
// (2 × 80 + 1) × 8,192 × 2 = 2,637,824 B: 70,555,025,408 B at TP 1, read in
// 70,555,025,408 / (4.8e12 × 0.92) = 15.977 ms on an H200.
TEST(InferStep, TrtllmStreamsWeightsAtTheMeasuredReadShare) {
  const Engine& trtllm = testing::cat().engine("trtllm");
  for (const char* id : {"h100-sxm", "h200-sxm"}) {
    const Gpu& gpu = testing::cat().gpu(id);
    ASSERT_GT(gpu.achievable_memory_bw_bytes_per_s, 0) << id;
    EXPECT_NEAR(trtllm.bw_fraction, gpu.achievable_memory_bw_bytes_per_s / gpu.memory_bw_bytes_per_s, 0.005) << id;
  }
  const InferContext ctx = make_infer_context(testing::cat(), testing::cat().model("llama3.1-70b"),
                                              testing::cat().gpu("h200-sxm"), trtllm);
  InferPlan plan;
  plan.tp = 1;
  plan.weights = Precision::fp8;
  plan.kv = Precision::fp8;
  const StepCost c = step_cost(ctx, plan, {4, 1536, 0, 0});
  EXPECT_DOUBLE_EQ(c.weight_bytes, 70'555'025'408.0);
  EXPECT_NEAR(c.linear_mem_s, 70'555'025'408.0 / (4.8e12 * 0.92), 1e-12);
  EXPECT_NEAR(c.linear_mem_s, 15.977e-3, 0.001e-3);
}

}  // namespace
}  // namespace gpuplan
