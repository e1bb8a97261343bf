// MLA decodes in the absorbed form (infer/mla_decode.h; docs/model/inference.md §4, "MLA
// decode"): DeepSeek-V3's decode token attends as multi-query attention over the 576-wide latent
// key and 512-wide latent value of its 128 heads, its prompt tokens in the multi-head form, each
// against a hand derivation.
#include "infer/mla_decode.h"

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "infer/step.h"

namespace gpuplan {
namespace {

using testing::cat;

InferPlan fp8_weights_bf16_kv() {
  InferPlan p;
  p.weights = Precision::fp8;
  p.kv = Precision::bf16;
  return p;
}

TEST(MlaDecode, AbsorbedFlopsPerKeyHandChecked) {
  const ModelSpec& ds = cat().model("deepseek-v3");
  ASSERT_TRUE(ds.mla);
  ASSERT_EQ(ds.heads, 128);
  ASSERT_EQ(ds.mla_shape.kv_lora_rank, 512);
  ASSERT_EQ(ds.mla_shape.qk_rope_head_dim, 64);
  // QK^T over the latent key: 2 · 128 · (512 + 64) = 147,456; PV over the latent value:
  // 2 · 128 · 512 = 131,072.
  EXPECT_DOUBLE_EQ(mla_absorbed_decode_flops_per_key_layer(ds), 278528.0);
  // Without MLA: nothing (the multi-head figure stands).
  EXPECT_DOUBLE_EQ(mla_absorbed_decode_flops_per_key_layer(cat().model("llama3.1-8b")), 0.0);

  const InferContext ctx = make_infer_context(cat(), ds, cat().gpu("h200-sxm"), cat().engine("tensorrt-llm-1.0"));
  // Prompts keep the multi-head form: 2 · 128 · ((128 + 64) + 128) = 81,920.
  EXPECT_DOUBLE_EQ(ctx.attention_flops_per_key_layer, 81920.0);
  EXPECT_DOUBLE_EQ(ctx.decode_attention_flops_per_key_layer, 278528.0);
  const InferContext llama =
      make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"), cat().engine("tensorrt-llm-1.0"));
  EXPECT_DOUBLE_EQ(llama.decode_attention_flops_per_key_layer, llama.attention_flops_per_key_layer);
}

TEST(MlaDecode, StepTermHandChecked) {
  const InferContext ctx =
      make_infer_context(cat(), cat().model("deepseek-v3"), cat().gpu("h200-sxm"), cat().engine("tensorrt-llm-1.0"));
  ASSERT_EQ(ctx.kv.full_layers, 61);
  // One decode at context 1,000 on one GPU: 278,528 × 61 layers × 1,000 keys = 16,990,208,000 FLOPs.
  const StepCost d = step_cost(ctx, fp8_weights_bf16_kv(), StepLoad{1, 1000, 0, 0});
  EXPECT_EQ(d.attention_precision, Precision::bf16);  // a bf16 KV cache: 16-bit math
  EXPECT_DOUBLE_EQ(d.attention_flops, 16990208000.0);
  EXPECT_DOUBLE_EQ(d.mla_decode_flops_per_key_layer, 278528.0);
  // The absorbed form's extra math over the multi-head form's at the bf16 rate:
  // (278,528 − 81,920) × 61 × 1,000 = 11,993,088,000 FLOPs / (H200 bf16 peak × 0.58).
  const double bf16_rate = cat().gpu("h200-sxm").dense(Precision::bf16) * 0.58 * ctx.calibration_attention_scale;
  EXPECT_NEAR(d.mla_decode_absorbed_s, 11993088000.0 / bf16_rate, 1e-15);
  EXPECT_NEAR(d.attention_compute_s, 16990208000.0 / bf16_rate, 1e-15);
  // A 1,024-token prompt alone: the multi-head form, 81,920 × 61 × 1,024 tokens × 512.5 mean
  // causal keys = 2,622,488,576,000 FLOPs, and no MLA decode term.
  const StepCost p = step_cost(ctx, fp8_weights_bf16_kv(), StepLoad{0, 0, 1024, 1024});
  EXPECT_DOUBLE_EQ(p.attention_flops, 2622488576000.0);
  EXPECT_DOUBLE_EQ(p.mla_decode_flops_per_key_layer, 0.0);
  EXPECT_DOUBLE_EQ(p.mla_decode_absorbed_s, 0.0);
}

}  // namespace
}  // namespace gpuplan
