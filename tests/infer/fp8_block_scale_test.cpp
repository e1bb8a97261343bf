// FP8 block scales on Hopper (infer/step.h fp8_block_scale_s; docs/model/inference.md §4, "FP8
// block scales"): a native FP8 checkpoint with 128 x 128 weight blocks (DeepSeek-V3) served at
// FP8 on a GPU whose tensor cores take no scales runs its GEMMs at the measured fraction of the
// per-tensor FP8 rate, against a hand derivation.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "infer/step.h"

namespace gpuplan {
namespace {

using testing::cat;

InferPlan weights_at(Precision w) {
  InferPlan p;
  p.weights = w;
  p.kv = Precision::bf16;
  return p;
}

TEST(Fp8BlockScale, FractionWhereTheMmasTakeNoScales) {
  // Measured on one H200: 21.79 / 24.85 ms = 0.877, time-weighted (hopper.toml [gemm.block_scale]).
  const ModelSpec& ds = cat().model("deepseek-v3");
  const auto fraction = [&](const char* gpu) {
    return make_infer_context(cat(), ds, cat().gpu(gpu), cat().engine("tensorrt-llm-1.0"))
        .roofline->fp8_block_scale_rate_fraction;
  };
  EXPECT_DOUBLE_EQ(fraction("h200-sxm"), 0.877);
  EXPECT_DOUBLE_EQ(fraction("h100-sxm"), 0.877);
  // Blackwell's MMAs take block scales: no figure, 1.
  EXPECT_DOUBLE_EQ(fraction("b200"), 1.0);
}

TEST(Fp8BlockScale, StepTermHandChecked) {
  const ModelSpec& ds = cat().model("deepseek-v3");
  ASSERT_EQ(ds.checkpoint_quant, "fp8");
  const InferContext ctx = make_infer_context(cat(), ds, cat().gpu("h200-sxm"), cat().engine("tensorrt-llm-1.0"));
  // One decode token on one GPU. Its block-scaled GEMMs per token: MLA projections per layer
  // q_a 7,168 x 1,536 + q_b 1,536 x 24,576 + kv_a 7,168 x 576 + kv_b 512 x 32,768 + o 16,384 x 7,168
  // = 187,105,280, x 61 layers = 11,413,422,080; dense MLPs 3 x 3 x 7,168 x 18,432 = 1,189,085,184;
  // shared experts 58 x 3 x 7,168 x 2,048 = 2,554,331,136; routers 58 x 7,168 x 256 = 106,430,464:
  // 15,263,268,864 weights, 30,526,537,728 FLOPs; the routed experts 58 x 8 x 44,040,192 =
  // 20,434,649,088 weights, 40,869,298,176 FLOPs; the output head (bf16 in the checkpoint) not.
  const double nonexpert_flops = 30526537728.0;
  const double routed_flops = 40869298176.0;
  const double fp8_rate = cat().gpu("h200-sxm").dense(Precision::fp8) * 0.58;  // TensorRT-LLM 1.x's GEMM fraction
  const StepCost c = step_cost(ctx, weights_at(Precision::fp8), StepLoad{1, 1000, 0, 0});
  EXPECT_DOUBLE_EQ(c.fp8_block_scale_rate_fraction, 0.877);
  EXPECT_NEAR(c.moe.expert_compute_s, routed_flops / fp8_rate, 1e-15);
  // (1 / 0.877 − 1) = 0.140251 of the per-tensor time.
  EXPECT_NEAR(c.fp8_block_scale_s, (nonexpert_flops + routed_flops) / fp8_rate * (1 / 0.877 - 1), 1e-15);
  // The term is inside linear_compute_s: the block-scaled GEMMs at 0.877 of the FP8 rate.
  EXPECT_NEAR(c.linear_compute_s,
              (nonexpert_flops + routed_flops) / fp8_rate / 0.877 + c.output_head_s + c.moe.expert_padding_s +
                  c.moe.imbalance_s,
              1e-12);
  // Not at bf16, nor for an FP8 checkpoint without block scales (Llama's per-tensor FP8).
  EXPECT_DOUBLE_EQ(step_cost(ctx, weights_at(Precision::bf16), StepLoad{1, 1000, 0, 0}).fp8_block_scale_s, 0.0);
  const InferContext llama =
      make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"), cat().engine("tensorrt-llm-1.0"));
  EXPECT_DOUBLE_EQ(step_cost(llama, weights_at(Precision::fp8), StepLoad{1, 1000, 0, 0}).fp8_block_scale_s, 0.0);
}

}  // namespace
}  // namespace gpuplan
