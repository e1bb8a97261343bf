// Attention data parallelism × expert parallelism (DEP / TEP plans, docs/model/attention-dp.md):
// each formula against a hand derivation, the balanced case against the TP plan it must equal,
// and the input errors.
#include <cmath>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/error.h"
#include "infer/evaluate.h"
#include "infer/infer_request.h"
#include "infer/search.h"
#include "infer/step.h"
#include "infer_test_util.h"
#include "report/infer_report.h"

namespace gpuplan {
namespace {

using testing::cat;

// DeepSeek-V3 FP8 on 8 GPUs, prompt and output 1,024 tokens: TEP8 (attention_dp 1) or DEP8 (8).
InferPlan deepseek_plan(int attention_dp) {
  InferPlan p;
  p.tp = 8;
  p.ep = 8;
  p.attention_dp = attention_dp;
  p.weights = Precision::fp8;
  p.kv = Precision::fp8;
  p.input_len = 1024;
  p.output_len = 1024;
  p.mode = InferMode::concurrency;
  p.load = 256;
  return p;
}

InferContext deepseek_h200() { return testing::infer_context("deepseek-v3", "h200-sxm", "tensorrt-llm-1.0"); }

// The busiest rank carries ⌈n/dp⌉ decodes and whole prompts:
//   10 decodes over 8 ranks → ⌈1.25⌉ = 2;
//   300 prompt tokens of a 1,024-token prompt (0.29 of one) → all 300 on one rank;
//   4,096 tokens = 4 whole prompts over 8 ranks → one prompt, 1,024 tokens (not 4,096 / 8 = 512);
//   8,192 tokens = 8 prompts → 1,024 each (balanced: 8,192 / 8).
TEST(AttentionDp, SlowestRankCarriesWholeRequests) {
  const StepLoad a = slowest_attention_dp_rank({10, 100, 300, 1024}, 8);
  EXPECT_DOUBLE_EQ(a.decode_seqs, 2);
  EXPECT_DOUBLE_EQ(a.prefill_tokens, 300);
  EXPECT_DOUBLE_EQ(a.decode_context, 100);
  EXPECT_DOUBLE_EQ(slowest_attention_dp_rank({0, 0, 4096, 1024}, 8).prefill_tokens, 1024);
  EXPECT_DOUBLE_EQ(slowest_attention_dp_rank({0, 0, 8192, 1024}, 8).prefill_tokens, 1024);
  EXPECT_DOUBLE_EQ(slowest_attention_dp_rank({64, 100, 0, 0}, 8).decode_seqs, 8);
  // Without attention DP the load is the load.
  EXPECT_DOUBLE_EQ(slowest_attention_dp_rank({10, 100, 300, 1024}, 1).decode_seqs, 10);
}

// KV per sequence per GPU, by hand. DeepSeek-V3's MLA caches one latent per token and layer,
// kv_lora_rank 512 + rope 64 = 576 elements, FP8 = 576 B, × 61 layers = 35,136 B per token. The
// latent has no head dimension to split, so TP 8 replicates it on every GPU; TensorRT-LLM
// reserves prompt + output = 2,048 tokens (32-token blocks: 2,048 exactly):
//   2,048 × 35,136 = 71,958,528 B per sequence per GPU, TEP8 and DEP8 alike.
// The difference: under DEP8 a GPU holds only its own rank's sequences, so the replica holds
// 8 × ⌊budget / 71,958,528⌋ of them.
TEST(AttentionDp, MlaKvPerGpuIsNotDividedAndEachRankHoldsItsOwn) {
  const InferContext ctx = deepseek_h200();
  const InferMemory tep = infer_memory(ctx, deepseek_plan(1));
  const InferMemory dep = infer_memory(ctx, deepseek_plan(8));
  EXPECT_DOUBLE_EQ(tep.kv_per_seq, 71'958'528.0);
  EXPECT_DOUBLE_EQ(dep.kv_per_seq, 71'958'528.0);
  EXPECT_DOUBLE_EQ(tep.max_seqs, std::floor(tep.kv_budget / tep.kv_per_seq));
  EXPECT_DOUBLE_EQ(dep.max_seqs, 8 * std::floor(dep.kv_budget / dep.kv_per_seq));
  // DEP8 stores the non-expert weights whole on every GPU: 7/8 of them more per GPU.
  const InferWeights& w = ctx.weights;
  const double dense = w.layer_matmul * 1.0 + w.layer_other * 2 + (w.input_embedding + w.output_head) * 2;
  EXPECT_NEAR(dep.weights - tep.weights, dense * 7 / 8, 1e-6 * dense);
  EXPECT_GT(dep.max_seqs, tep.max_seqs);  // replicated weights cost less than the replicated latent
}

// A GQA model's KV does split over the attention TP: Qwen3-30B-A3B (4 KV heads of 128, 48
// layers), BF16 KV, TP 4 with attention DP 2 → attention TP 2: 2 KV heads per GPU,
// 2 (K and V) × 2 heads × 128 × 2 B = 1,024 B per layer × 48 = 49,152 B per token.
TEST(AttentionDp, GqaKvSplitsOverTheAttentionTpGroup) {
  const InferContext ctx = testing::infer_context("qwen3-30b-a3b", "h100-sxm", "vllm");
  InferPlan p;
  p.tp = 4;
  p.ep = 4;
  p.attention_dp = 2;
  p.input_len = 1000;
  p.output_len = 1;
  const InferMemory m = infer_memory(ctx, p);
  const double length = 1000 + 0.5;  // vLLM counts the average length (no reservation)
  const double blocks = std::ceil(length / ctx.engine->kv_block_tokens) * ctx.engine->kv_block_tokens;
  EXPECT_DOUBLE_EQ(m.kv_per_seq, blocks * 49'152.0);
}

// The dispatch/combine AllToAll of a DEP8 decode step, by hand: 64 decodes over 8 ranks = 8 per
// GPU (attention TP 1); each token goes to min(k = 8, EP 8) = 8 expert groups of 8 / 8 = 1 GPU:
// 8 × 8 × 7,168 hidden × 2 B = 917,504 B sent per GPU, twice per MoE layer (dispatch, combine),
// 61 − 3 dense = 58 MoE layers, no AllReduce (attention TP 1).
TEST(AttentionDp, AllToAllBytesPerStepHandChecked) {
  const InferContext ctx = deepseek_h200();
  const StepCost c = step_cost(ctx, deepseek_plan(8), {64, 1536, 0, 0});
  // The busiest EP rank receives the router imbalance times its share (docs/model/moe-serving.md).
  const double a2a = tp_collective_s(ctx, CollectiveOp::all_to_all, 917'504.0 * kDefaultRouterImbalance, 8);
  EXPECT_GT(a2a, 0);
  EXPECT_DOUBLE_EQ(c.comm_s, 2 * 58 * a2a);
  // TEP8 sends the same bytes (k = EP: every token reaches every GPU) and adds the attention
  // AllReduces: 2 × 61 − 58 = 64 of 64 × 7,168 × 2 B over 8 GPUs.
  const StepCost t = step_cost(ctx, deepseek_plan(1), {64, 1536, 0, 0});
  const double ar = tp_collective_s(ctx, CollectiveOp::all_reduce, 64 * 7168 * 2.0, 8);
  EXPECT_NEAR(t.comm_s, 64 * ar + 2 * 58 * a2a, 1e-12 * t.comm_s);
}

// Balanced ranks (decodes a multiple of dp, no prompts) do the same FLOPs per GPU as TP: the
// attention and dense work of 1/dp of the tokens at 1/(tp/dp) of the width. Only the bytes differ:
// the non-expert weights are read whole (more), the MLA latent of 1/8 of the sequences (less).
TEST(AttentionDp, BalancedFlopsEqualTpFlops) {
  const InferContext ctx = deepseek_h200();
  const StepLoad load{256, 1536, 0, 0};
  const StepCost tep = step_cost(ctx, deepseek_plan(1), load);
  const StepCost dep = step_cost(ctx, deepseek_plan(8), load);
  EXPECT_NEAR(dep.linear_flops, tep.linear_flops, 1e-9 * tep.linear_flops);
  EXPECT_NEAR(dep.attention_flops, tep.attention_flops, 1e-9 * tep.attention_flops);
  EXPECT_GT(dep.weight_bytes, tep.weight_bytes);
  EXPECT_NEAR(dep.kv_bytes, tep.kv_bytes / 8, 1e-9 * tep.kv_bytes);
}

// On a dense model attention DP is replicas stepping together. A static batch is balanced
// (whole prompts, ⌈32/2⌉ = 16 per rank): tp 2 with attention DP 2 at batch 32 has the TTFT and
// TPOT of tp 1 at batch 16 (no collectives either way, the same per-GPU work). Under continuous
// batching the prompt chunk of a step lands on one rank and the other waits for it (the lockstep
// the DP ranks pay at every MoE layer), so the same pair is slower than independent replicas.
TEST(AttentionDp, DenseModelEqualsReplicasWhenBalanced) {
  const InferContext ctx = testing::infer_context("llama3-8b", "h100-sxm", "vllm");
  InferPlan one;
  one.mode = InferMode::batch;
  one.load = 16;
  InferPlan dp = one;
  dp.tp = 2;
  dp.attention_dp = 2;
  dp.load = 32;
  const InferEstimate a = evaluate_inference(ctx, one);
  const InferEstimate b = evaluate_inference(ctx, dp);
  ASSERT_TRUE(a.feasible && b.feasible);
  EXPECT_NEAR(b.point.tpot_s, a.point.tpot_s, 1e-9 * a.point.tpot_s);
  EXPECT_NEAR(b.point.ttft_s, a.point.ttft_s, 1e-9 * a.point.ttft_s);
  EXPECT_NEAR(b.output_tokens_per_s_per_gpu, a.output_tokens_per_s_per_gpu, 1e-6 * a.output_tokens_per_s_per_gpu);
  one.mode = dp.mode = InferMode::concurrency;
  const InferEstimate c = evaluate_inference(ctx, one);
  const InferEstimate d = evaluate_inference(ctx, dp);
  ASSERT_TRUE(c.feasible && d.feasible);
  EXPECT_GT(d.point.tpot_s, c.point.tpot_s);  // the chunk's rank sets the pace
}

TEST(AttentionDp, PlanLabels) {
  EXPECT_EQ(infer_plan_label(deepseek_plan(8)), "DEP8");
  EXPECT_EQ(infer_plan_label(deepseek_plan(1)), "TEP8");
  InferPlan p = deepseek_plan(2);
  EXPECT_EQ(infer_plan_label(p), "attention DP2×TP4, experts EP8");
  p.ep = 2;
  EXPECT_EQ(infer_plan_label(p), "attention DP2×TP4, experts EP2×TP4");
  p.ep = 1;
  p.attention_dp = 1;
  EXPECT_EQ(infer_plan_label(p), "");
}

InferRequest deepseek_request() {
  InferRequest r;
  r.model = "deepseek-v3";
  r.gpu = "h200-sxm";
  r.engine = "tensorrt-llm-1.0";
  r.weights = "fp8";
  r.tp = 8;
  r.ep = 8;
  r.concurrency = 256;
  return r;
}

std::string error_of(const InferRequest& r) {
  try {
    answer_infer(cat(), r);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(AttentionDp, BadValuesNameTheFlagTheValueAndTheFix) {
  InferRequest r = deepseek_request();
  r.attention_dp = 3;
  std::string why = error_of(r);
  EXPECT_NE(why.find("--attention-dp 3"), std::string::npos) << why;
  EXPECT_NE(why.find("divisor of 8"), std::string::npos) << why;
  r.attention_dp = 0;
  why = error_of(r);
  EXPECT_NE(why.find("--attention-dp 0"), std::string::npos) << why;
  r.attention_dp = 8;
  r.features.prefix_hit_rate = 0.5;
  why = error_of(r);
  EXPECT_NE(why.find("--attention-dp 8 with --prefix-hit-rate"), std::string::npos) << why;
}

TEST(AttentionDp, DenseModelIsAllowedWithANote) {
  InferRequest r;
  r.model = "llama3-8b";
  r.gpu = "h100-sxm";
  r.tp = 2;
  r.attention_dp = 2;
  const InferAnswer a = answer_infer(cat(), r);
  EXPECT_TRUE(a.estimate.feasible);
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_NE(a.notes[0].find("dense model llama3-8b"), std::string::npos) << a.notes[0];
}

// infer-search tries attention DP on MoE models only, and names what it picks.
TEST(AttentionDp, SearchEnumeratesItForMoeOnly) {
  InferSearchSpec spec;
  spec.weights = {Precision::fp8};
  spec.kvs = {Precision::fp8};
  int dep = 0;
  for (const InferPlan& p : infer_search_space(deepseek_h200(), spec)) dep += p.attention_dp > 1;
  EXPECT_GT(dep, 0);
  for (const InferPlan& p :
       infer_search_space(testing::infer_context("llama3-8b", "h100-sxm", "vllm"), spec)) {
    EXPECT_EQ(p.attention_dp, 1);
  }
}

}  // namespace
}  // namespace gpuplan
