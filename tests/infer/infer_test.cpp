// Inference model: KV cache, memory budgets, decode/prefill, batching — unit tests with the
// hand derivation in comments, the seed goldens (checked, not copied) and properties.
#include <cmath>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "infer/evaluate.h"
#include "infer/infer_test_util.h"
#include "workload/kv_cache.h"
#include "workload/params.h"

namespace gpuplan {
namespace {

using testing::cat;
using testing::infer_context;

InferPlan plan(int tp, Precision w, InferMode mode = InferMode::batch, double load = 1, std::int64_t in = 1024,
               std::int64_t out = 256) {
  InferPlan p;
  p.tp = tp;
  p.weights = w;
  p.kv = precision_bytes(w) < 2 ? Precision::fp8 : Precision::bf16;
  p.mode = mode;
  p.load = load;
  p.input_len = in;
  p.output_len = out;
  return p;
}

// Llama-3 8B: 32 layers × 2 (K, V) × 8 KV heads × 128 dims × 2 bytes = 131,072 B per token.
TEST(KvCache, GqaBytesPerTokenAndTpShare) {
  const ModelSpec& m = cat().model("llama3-8b");
  const KvShape kv = make_kv_shape(m);
  EXPECT_DOUBLE_EQ(kv_bytes_per_seq_per_gpu(kv, 1, Precision::bf16, 1, 1), 131072);
  EXPECT_DOUBLE_EQ(kv_bytes_per_seq_per_gpu(kv, 1000, Precision::bf16, 1, 1),
                   kv_cache_bytes(m, 1000, Precision::bf16));
  EXPECT_DOUBLE_EQ(kv_bytes_per_seq_per_gpu(kv, 1, Precision::bf16, 8, 1), 131072 / 8.0);
  // TP 16 > 8 KV heads: each rank still holds one whole head (1/8 of the layer).
  EXPECT_DOUBLE_EQ(kv_tp_share(kv, 16), 1.0 / 8);
  EXPECT_DOUBLE_EQ(kv_bytes_per_seq_per_gpu(kv, 1, Precision::fp8, 1, 2), 131072 / 2.0 / 2.0);
}

TEST(KvCache, PagedBlocksAndSlidingWindowsAndMla) {
  EXPECT_DOUBLE_EQ(paged_tokens(17, 16), 32);
  EXPECT_DOUBLE_EQ(paged_tokens(16, 16), 16);
  // Mistral 7B: every layer keeps at most its 4,096-token window.
  const ModelSpec& mistral = cat().model("mistral-7b");
  const KvShape kv = make_kv_shape(mistral);
  if (kv.window > 0) {
    EXPECT_DOUBLE_EQ(kv_bytes_per_seq_per_gpu(kv, 32768, Precision::bf16, 1, 1),
                     kv_cache_bytes(mistral, 32768, Precision::bf16));
  }
  // DeepSeek-V3 MLA: (512 + 64) × 61 layers × 1 byte (fp8), replicated on every TP rank.
  const KvShape mla = make_kv_shape(cat().model("deepseek-v3"));
  EXPECT_DOUBLE_EQ(kv_bytes_per_seq_per_gpu(mla, 1, Precision::fp8, 8, 1), 576.0 * 61);
}

// Seed golden: Llama-3 70B in FP16 is ~141 GB of weights, so it needs two 80 GB GPUs.
TEST(InferGolden, Llama70bFp16NeedsTwo80GbGpus) {
  const InferContext ctx = infer_context("llama3-70b", "h100-sxm");
  EXPECT_NEAR(serving_weight_bytes(ctx.weights, Precision::fp16) / 1e9, 141, 1.5);
  const InferEstimate one = evaluate_inference(ctx, plan(1, Precision::fp16));
  EXPECT_FALSE(one.feasible);
  EXPECT_NE(std::string(one.reason_text()).find("--tp"), std::string::npos) << one.reason_text();
  EXPECT_TRUE(evaluate_inference(ctx, plan(2, Precision::fp16)).feasible);
}

// "A 70B model fits on one H200" only at 8 bits or fewer once KV and runtime are counted.
TEST(InferGolden, Llama70bOnOneH200OnlyAt8BitsOrFewer) {
  const InferContext ctx = infer_context("llama3-70b", "h200-sxm");
  const InferEstimate bf16 = evaluate_inference(ctx, plan(1, Precision::bf16));
  EXPECT_FALSE(bf16.feasible);
  EXPECT_NE(std::string(bf16.reason_text()).find("--weights fp8"), std::string::npos) << bf16.reason_text();
  EXPECT_TRUE(evaluate_inference(ctx, plan(1, Precision::fp8)).feasible);
  EXPECT_TRUE(evaluate_inference(ctx, plan(1, Precision::int4)).feasible);
}

// Single-stream decode reads every weight per token: 8B BF16 = 16 GB over 3.35 TB/s → ≤ ~210 tok/s.
TEST(InferGolden, SingleStreamDecodeBoundedByBandwidth) {
  const InferContext ctx = infer_context("llama3-8b", "h100-sxm");
  const InferEstimate e = evaluate_inference(ctx, plan(1, Precision::bf16));
  ASSERT_TRUE(e.feasible) << e.reason_text();
  EXPECT_LE(1 / e.point.tpot_s, 210);
  EXPECT_GE(e.point.tpot_s, serving_weight_bytes(ctx.weights, Precision::bf16) / ctx.gpu->memory_bw_bytes_per_s);
  EXPECT_EQ(e.bottleneck, Bottleneck::weights_bandwidth);
  EXPECT_STREQ(e.bottleneck_text(), "weights bandwidth");
}

// H200's 4.8 vs 3.35 TB/s: ~1.43× when bandwidth-bound (fixed per-step costs dilute it a little).
TEST(InferGolden, H200DecodesAbout1p4xFaster) {
  const InferEstimate h100 =
      evaluate_inference(infer_context("llama3-8b", "h100-sxm", "tensorrt-llm"), plan(1, Precision::bf16));
  const InferEstimate h200 =
      evaluate_inference(infer_context("llama3-8b", "h200-sxm", "tensorrt-llm"), plan(1, Precision::bf16));
  const double ratio = h100.point.tpot_s / h200.point.tpot_s;
  EXPECT_GT(ratio, 1.3);
  EXPECT_LE(ratio, 4.8 / 3.35 + 1e-9);
}

// INT8/FP8 halve and 4-bit formats quarter the bytes of the quantised (linear) weights.
TEST(InferGolden, QuantisationHalvesAndQuarters) {
  const InferContext ctx = infer_context("llama3-70b", "h100-sxm");
  InferWeights linear_only = ctx.weights;
  linear_only.layer_other = linear_only.input_embedding = linear_only.output_head = 0;
  const double bf16 = serving_weight_bytes(linear_only, Precision::bf16);
  EXPECT_DOUBLE_EQ(serving_weight_bytes(linear_only, Precision::fp8), bf16 / 2);
  EXPECT_DOUBLE_EQ(serving_weight_bytes(linear_only, Precision::int8), bf16 / 2);
  EXPECT_DOUBLE_EQ(serving_weight_bytes(linear_only, Precision::int4), bf16 / 4);
  // FP4 is NVFP4: 4 bits plus one FP8 scale per 16 values, 0.5 + 1/16 = 0.5625 B = 9/32 of
  // bf16's 2 B (issue 14; was bf16 / 4 without the block scales).
  EXPECT_DOUBLE_EQ(serving_weight_bytes(linear_only, Precision::fp4), bf16 * 9 / 32);
  // Whole model: embeddings stay 16-bit, so a little over half.
  const double ratio = serving_weight_bytes(ctx.weights, Precision::fp8) / serving_weight_bytes(ctx.weights, Precision::bf16);
  EXPECT_GT(ratio, 0.5);
  EXPECT_LT(ratio, 0.53);
}

// Linear layers turn compute-bound near the ridge batch: peak × fraction × bytes/param / (2 × bw).
TEST(InferGolden, DecodeTurnsComputeBoundNearTheRidge) {
  const InferContext ctx = infer_context("llama3-8b", "h100-sxm", "tensorrt-llm");
  InferPlan p = plan(1, Precision::bf16, InferMode::batch, 1, 16, 16);
  const InferEstimate e = evaluate_inference(ctx, p);
  const double ridge = e.ridge_batch;
  EXPECT_GT(ridge, 100);
  EXPECT_LT(ridge, 400);
  const StepCost below = step_cost(ctx, p, {ridge / 2, 32, 0, 0});
  const StepCost above = step_cost(ctx, p, {ridge * 2, 32, 0, 0});
  EXPECT_GT(below.linear_mem_s, below.linear_compute_s);
  EXPECT_LT(above.linear_mem_s, above.linear_compute_s);
}

// Engine budget rules, hand-derived on a made-up engine and the 8B on an H100.
TEST(InferMemory, EngineBudgetRules) {
  Catalog c = cat();
  Engine e = c.engine("vllm");
  const InferContext base = infer_context("llama3-8b", "h100-sxm");
  InferContext ctx = base;
  ctx.engine = &e;
  const InferPlan p = plan(1, Precision::bf16);
  e.budget_rule = KvBudgetRule::total_fraction;
  const InferMemory total = infer_memory(ctx, p);
  const double used = total.weights + total.activations + total.runtime;
  EXPECT_DOUBLE_EQ(total.kv_budget, 0.9 * total.capacity - used);
  e.budget_rule = KvBudgetRule::free_fraction;
  EXPECT_DOUBLE_EQ(infer_memory(ctx, p).kv_budget, 0.9 * (total.capacity - used));
  e.budget_rule = KvBudgetRule::static_fraction;
  e.memory_fraction = 0.88;
  EXPECT_DOUBLE_EQ(infer_memory(ctx, p).kv_budget, 0.88 * total.capacity - total.weights);
  // Max sequences = budget / paged KV per sequence (1,024 + 128 tokens at 16 per block).
  EXPECT_DOUBLE_EQ(total.kv_per_seq, 131072.0 * (1024 + 128));
  EXPECT_DOUBLE_EQ(total.max_seqs, std::floor(total.kv_budget / total.kv_per_seq));
}

TEST(InferProperties, MoreBandwidthIsNeverSlower) {
  Gpu faster = cat().gpu("h100-sxm");
  faster.memory_bw_bytes_per_s *= 1.5;
  const InferContext slow = infer_context("llama3-8b", "h100-sxm");
  const InferContext fast = make_infer_context(cat(), cat().model("llama3-8b"), faster, cat().engine("vllm"));
  for (double batch : {1.0, 8.0, 64.0, 256.0}) {
    const InferPlan p = plan(1, Precision::bf16, InferMode::batch, batch);
    const InferEstimate a = evaluate_inference(slow, p);
    const InferEstimate b = evaluate_inference(fast, p);
    ASSERT_TRUE(a.feasible && b.feasible);
    EXPECT_LE(b.point.tpot_s, a.point.tpot_s);
    EXPECT_LE(b.point.ttft_s, a.point.ttft_s);
  }
}

TEST(InferProperties, LongerContextIsNeverCheaperPerToken) {
  const InferContext ctx = infer_context("llama3-8b", "h100-sxm");
  double last_tpot = 0;
  double last_attention_per_token = 0;
  for (std::int64_t in : {128, 512, 2048, 8192, 32768}) {
    const InferPlan p = plan(1, Precision::bf16, InferMode::batch, 4, in, 128);
    const InferEstimate e = evaluate_inference(ctx, p);
    ASSERT_TRUE(e.feasible) << e.reason_text();
    EXPECT_GE(e.point.tpot_s, last_tpot);  // each output token reads a longer KV cache
    last_tpot = e.point.tpot_s;
    // Each prompt token attends to more keys. (TTFT per prompt token itself falls at first:
    // the weights are read once per step and fixed costs amortise — that is not "context".)
    const StepCost c = step_cost(ctx, p, {0, 0, static_cast<double>(in), static_cast<double>(in)});
    EXPECT_GE(c.attention_flops / static_cast<double>(in), last_attention_per_token);
    last_attention_per_token = c.attention_flops / static_cast<double>(in);
  }
}

TEST(InferProperties, BiggerBatchNeverLowersThroughputUntilMemoryRunsOut) {
  const InferContext ctx = infer_context("llama3-8b", "h100-sxm", "tensorrt-llm");
  double last = 0;
  bool ran_out = false;
  for (double batch = 1; batch <= 4096; batch *= 2) {
    const InferEstimate e = evaluate_inference(ctx, plan(1, Precision::bf16, InferMode::batch, batch, 2048, 512));
    if (!e.feasible) {
      EXPECT_EQ(e.bottleneck, Bottleneck::capacity);
      ran_out = true;
      break;
    }
    EXPECT_GE(e.output_tokens_per_s, last);
    last = e.output_tokens_per_s;
  }
  EXPECT_TRUE(ran_out);
  // Continuous batching: throughput rises with concurrency too.
  last = 0;
  for (double c : {1.0, 4.0, 16.0, 64.0}) {
    const InferEstimate e = evaluate_inference(ctx, plan(1, Precision::bf16, InferMode::concurrency, c, 1024, 256));
    EXPECT_GE(e.output_tokens_per_s, last);
    last = e.output_tokens_per_s;
  }
}

TEST(InferBadInput, TpNotDividingHeadsIsAValueNamingTheFix) {
  const InferEstimate e = evaluate_inference(infer_context("llama3-8b", "h100-sxm"), plan(3, Precision::bf16));
  EXPECT_FALSE(e.feasible);
  EXPECT_NE(std::string(e.reason_text()).find("TP 3 does not divide the 32 attention heads"), std::string::npos) << e.reason_text();
  InferPlan ep = plan(2, Precision::bf16);
  ep.ep = 2;
  EXPECT_NE(std::string(evaluate_inference(infer_context("llama3-8b", "h100-sxm"), ep).reason_text()).find("dense"),
            std::string::npos);
}

TEST(InferBadInput, ModelThatCannotFitAtAll) {
  // Llama-3.1 405B in BF16 (~810 GB) on one 48 GB L40S.
  const InferEstimate e = evaluate_inference(infer_context("llama3.1-405b", "l40s"), plan(1, Precision::bf16));
  EXPECT_FALSE(e.feasible);
  EXPECT_NE(std::string(e.reason_text()).find("use more GPUs"), std::string::npos) << e.reason_text();
}

TEST(InferBatching, MaxThroughputUsesTheMemoryLimitAndContinuousMatchesLightLoad) {
  const InferContext ctx = infer_context("llama3.1-8b", "h100-sxm", "tensorrt-llm");
  const InferEstimate e = evaluate_inference(ctx, plan(1, Precision::fp8, InferMode::max_throughput, 0, 2048, 2048));
  ASSERT_TRUE(e.feasible);
  EXPECT_EQ(e.batch_limit, "KV capacity");
  EXPECT_LE(e.point.running, e.memory.max_seqs);
  // More requests in flight than fit: the surplus queues (TTFT grows by Little's law).
  const InferEstimate over =
      evaluate_inference(ctx, plan(1, Precision::fp8, InferMode::concurrency, e.memory.max_seqs * 2, 2048, 2048));
  EXPECT_GT(over.point.queue_s, 0);
}

}  // namespace
}  // namespace gpuplan
