// The precision each GEMM group of a serving step multiplies in (docs/model/moe-serving.md,
// "Expert GEMM precision" and "The output head"), each against a hand derivation:
//  - a published MXFP4 checkpoint (gpt-oss: quantization_config.quant_method mxfp4, attention in
//    modules_to_not_convert) served with --weights fp4 stores its experts in MXFP4 (0.53125 B)
//    and multiplies them with 8-bit activations on FP4 tensor cores (W4A8), in 16 bits without
//    them (W4A16); its attention stays 16-bit;
//  - a checkpoint without a quantization_config (Qwen3-30B-A3B as NVIDIA's NVFP4 export runs)
//    multiplies its experts at FP4 with NVFP4 bytes (0.5625 B);
//  - FP4 weights on a GPU without FP4 tensor cores are weight-only (W4A16), not refused;
//  - the output head's share of the linear time is named (16-bit for the MXFP4 checkpoint).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "infer/infer_request.h"
#include "infer/step.h"
#include "workload/hf_config.h"

namespace gpuplan {
namespace {

using testing::cat;

double rate_at(const InferContext& ctx, Precision p) {
  const std::size_t i = index_of(p);
  return ctx.gpu->dense(p) * ctx.gemm_fraction * ctx.calibration_gemm_scale[i] * ctx.serving_gemm_scale[i];
}

InferPlan fp4_plan() {
  InferPlan p;
  p.weights = Precision::fp4;
  p.kv = Precision::fp8;
  return p;
}

TEST(MoePrecision, HfQuantizationConfigIsRead) {
  const ModelSpec& oss = cat().model("gpt-oss-120b");
  EXPECT_EQ(oss.checkpoint_quant, "mxfp4");
  EXPECT_TRUE(oss.checkpoint_attention_16bit);
  const ModelSpec& qwen = cat().model("qwen3-30b-a3b");
  EXPECT_EQ(qwen.checkpoint_quant, "");
  EXPECT_FALSE(qwen.checkpoint_attention_16bit);
  // A config.json of another quantiser: the method is kept, lower-cased; no self_attn module kept 16-bit.
  const nlohmann::json fp8 = {
      {"model_type", "llama"},
      {"hidden_size", 4096},
      {"intermediate_size", 14336},
      {"num_hidden_layers", 32},
      {"num_attention_heads", 32},
      {"num_key_value_heads", 8},
      {"vocab_size", 128256},
      {"max_position_embeddings", 8192},
      {"quantization_config", {{"quant_method", "FP8"}, {"modules_to_not_convert", {"lm_head"}}}}};
  const ModelSpec m = model_from_hf_config(fp8, "test config");
  EXPECT_EQ(m.checkpoint_quant, "fp8");
  EXPECT_FALSE(m.checkpoint_attention_16bit);
}

TEST(MoePrecision, WeightFormatHandChecked) {
  const ModelSpec& oss = cat().model("gpt-oss-120b");
  // B200 (FP4 and FP8 tensor cores): MXFP4 experts with MXFP8 activations = the FP8 rate;
  // attention 16-bit (2 B, bf16 GEMM).
  const LinearWeightFormat b200 = linear_weight_format(oss, cat().gpu("b200"), Precision::fp4);
  EXPECT_DOUBLE_EQ(b200.expert_bytes, 0.5 + 1.0 / 32);
  EXPECT_EQ(b200.expert_gemm, Precision::fp8);
  EXPECT_DOUBLE_EQ(b200.nonexpert_bytes, 2.0);
  EXPECT_EQ(b200.nonexpert_gemm, Precision::bf16);
  // H100 (no FP4 tensor cores): weight-only, dequantised to bf16 (W4A16).
  const LinearWeightFormat h100 = linear_weight_format(oss, cat().gpu("h100-sxm"), Precision::fp4);
  EXPECT_DOUBLE_EQ(h100.expert_bytes, 0.5 + 1.0 / 32);
  EXPECT_EQ(h100.expert_gemm, Precision::bf16);
  EXPECT_EQ(h100.nonexpert_gemm, Precision::bf16);
  // The same model at --weights fp8 is not the published checkpoint: everything FP8.
  const LinearWeightFormat fp8 = linear_weight_format(oss, cat().gpu("h100-sxm"), Precision::fp8);
  EXPECT_DOUBLE_EQ(fp8.expert_bytes, 1.0);
  EXPECT_DOUBLE_EQ(fp8.nonexpert_bytes, 1.0);
  EXPECT_EQ(fp8.expert_gemm, Precision::fp8);
  // NVFP4 (no quantization_config in the zoo entry): W4A4 at the FP4 rate, 0.5 + 1/16 B.
  const LinearWeightFormat qwen = linear_weight_format(cat().model("qwen3-30b-a3b"), cat().gpu("b200"), Precision::fp4);
  EXPECT_DOUBLE_EQ(qwen.expert_bytes, 0.5 + 1.0 / 16);
  EXPECT_EQ(qwen.expert_gemm, Precision::fp4);
  EXPECT_EQ(qwen.nonexpert_gemm, Precision::fp4);
  // Dense FP4 on Hopper: weight-only at bf16 (it used to widen to FP8).
  EXPECT_EQ(gemm_precision(cat().gpu("h100-sxm"), Precision::fp4), Precision::bf16);
  EXPECT_EQ(gemm_precision(cat().gpu("b200"), Precision::fp4), Precision::fp4);
}

// gpt-oss-20b on one B200, 256 decodes at context 1,024, --weights fp4:
//   output head: 256 rows × 2 × vocab 201,088 × hidden 2,880 FLOPs at the bf16 rate (lm_head and
//   self_attn are in the checkpoint's modules_to_not_convert);
//   experts: 256 tokens × 2 × routed weights × 4/32 active at the FP8 rate;
//   the rest (attention projections, router) at the bf16 rate.
// The sum is linear_compute_s (grouped GEMM at 100%: 32 tokens per expert fill no fewer tiles
// than the dense comparison, checked via the padding term).
TEST(MoePrecision, StepTermsHandChecked) {
  const InferContext ctx =
      make_infer_context(cat(), cat().model("gpt-oss-20b"), cat().gpu("b200"), cat().engine("tensorrt-llm-1.0"));
  const StepCost c = step_cost(ctx, fp4_plan(), StepLoad{256, 1024, 0, 0});
  const double head_flops = 256 * 2.0 * ctx.weights.output_head;
  EXPECT_DOUBLE_EQ(ctx.weights.output_head, 201088.0 * 2880);
  EXPECT_NEAR(c.output_head_s, head_flops / rate_at(ctx, Precision::bf16), 1e-12);
  const double expert_flops = 256 * 2.0 * ctx.weights.routed_experts * (4.0 / 32);
  EXPECT_EQ(c.moe.expert_gemm_precision, Precision::fp8);
  EXPECT_NEAR(c.moe.expert_compute_s, expert_flops / rate_at(ctx, Precision::fp8), 1e-12);
  const double rest_flops = c.linear_flops - head_flops - expert_flops;
  EXPECT_GT(rest_flops, 0);
  EXPECT_NEAR(c.linear_compute_s,
              rest_flops / rate_at(ctx, Precision::bf16) + c.output_head_s + c.moe.expert_compute_s +
                  c.moe.expert_padding_s + c.moe.imbalance_s,
              1e-9 * c.linear_compute_s);
  // Bytes: experts touched × MXFP4, attention and the rest of the layer matmuls in 16 bits.
  const double touched = c.moe.experts_touched;
  EXPECT_NEAR(c.moe.expert_weight_bytes, ctx.weights.routed_experts * touched * (0.5 + 1.0 / 32), 1e-6);
  EXPECT_NEAR(c.weight_bytes,
              ctx.weights.layer_matmul * 2 + ctx.weights.routed_experts * touched * (0.5 + 1.0 / 32) +
                  ctx.weights.layer_other * 2 + ctx.weights.output_head * 2,
              1e-6 * c.weight_bytes);
}

// FP4 experts widened to bf16 inside the GEMM on Hopper (docs/model/moe-serving.md, "FP4 weights
// widened in the kernel"). gpt-oss-20b on one H100 with TensorRT-LLM 1.x, --weights fp4 --kv bf16,
// 1,024 decodes at context 1,024: the experts multiply at the bf16 rate (W4A16), and the kernel
// runs at Hopper's measured 0.411 of it on full tiles (hopper.toml [gemm.weight_upcast]), so the
// widening adds expert FLOPs / bf16 rate × (1 / 0.411 − 1) = 1.4331 × expert_compute_s, charged on
// the routed rows (1,024 × 4 / 32 = 128 per expert: full 128-row tiles, no padding here).
TEST(MoePrecision, Fp4UpcastOnHopperHandChecked) {
  const InferContext ctx =
      make_infer_context(cat(), cat().model("gpt-oss-20b"), cat().gpu("h100-sxm"), cat().engine("tensorrt-llm-1.0"));
  ASSERT_TRUE(ctx.roofline.has_value());
  EXPECT_DOUBLE_EQ(ctx.roofline->fp4_upcast_rate_fraction, 0.411);
  InferPlan p = fp4_plan();
  p.kv = Precision::bf16;
  const StepCost c = step_cost(ctx, p, StepLoad{1024, 1024, 0, 0});
  const double expert_flops = 1024 * 2.0 * ctx.weights.routed_experts * (4.0 / 32);
  EXPECT_EQ(c.moe.expert_gemm_precision, Precision::bf16);
  EXPECT_NEAR(c.moe.expert_compute_s, expert_flops / rate_at(ctx, Precision::bf16), 1e-12);
  EXPECT_DOUBLE_EQ(c.moe.upcast_rate_fraction, 0.411);
  EXPECT_NEAR(c.moe.upcast_s, c.moe.expert_compute_s * (1 / 0.411 - 1), 1e-12);
  EXPECT_NEAR(c.moe.upcast_s / c.moe.expert_compute_s, 1.43309, 1e-5);
  EXPECT_DOUBLE_EQ(c.moe.expert_padding_s, 0.0);
  const double head_flops = 1024 * 2.0 * ctx.weights.output_head;
  const double rest_flops = c.linear_flops - head_flops - expert_flops;
  EXPECT_NEAR(c.linear_compute_s,
              rest_flops / rate_at(ctx, Precision::bf16) + c.output_head_s + c.moe.expert_compute_s + c.moe.upcast_s +
                  c.moe.expert_padding_s + c.moe.imbalance_s,
              1e-9 * c.linear_compute_s);
  // Not where the experts multiply in their own precision: FP4 tensor cores (B200: W4A8 at the
  // FP8 rate), or 16-bit weights on Hopper.
  const InferContext b200 =
      make_infer_context(cat(), cat().model("gpt-oss-20b"), cat().gpu("b200"), cat().engine("tensorrt-llm-1.0"));
  const StepCost cb = step_cost(b200, fp4_plan(), StepLoad{1024, 1024, 0, 0});
  EXPECT_DOUBLE_EQ(cb.moe.upcast_rate_fraction, 1.0);
  EXPECT_DOUBLE_EQ(cb.moe.upcast_s, 0.0);
  p.weights = Precision::bf16;
  const StepCost c16 = step_cost(ctx, p, StepLoad{1024, 1024, 0, 0});
  EXPECT_DOUBLE_EQ(c16.moe.upcast_s, 0.0);
  EXPECT_TRUE(experts_widen_fp4(linear_weight_format(cat().model("gpt-oss-20b"), cat().gpu("h100-sxm"), Precision::fp4),
                                Precision::fp4));
  EXPECT_FALSE(experts_widen_fp4(linear_weight_format(cat().model("gpt-oss-20b"), cat().gpu("b200"), Precision::fp4),
                                 Precision::fp4));
}

// A dense FP8 model: the head multiplies with the other layers at FP8 (a 16-bit head everywhere
// was tried and not adopted, docs/model/moe-serving.md). Llama 3.1 8B on H100, 64 decodes:
// head 64 × 2 × 128,256 × 4,096 FLOPs, named, inside linear_compute_s at the FP8 rate.
TEST(MoePrecision, DenseHeadShareHandChecked) {
  const InferContext ctx =
      make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h100-sxm"), cat().engine("vllm"));
  InferPlan p;
  p.weights = Precision::fp8;
  p.kv = Precision::fp8;
  const StepCost c = step_cost(ctx, p, StepLoad{64, 1024, 0, 0});
  const double head_flops = 64 * 2.0 * 128256 * 4096;
  EXPECT_NEAR(c.output_head_s, head_flops / rate_at(ctx, Precision::fp8), 1e-12);
  EXPECT_NEAR(c.linear_compute_s, c.linear_flops / rate_at(ctx, Precision::fp8), 1e-9 * c.linear_compute_s);
  EXPECT_EQ(c.moe.tokens_per_expert, 0.0);
}

// Padding counts only the experts a step touches. gpt-oss-120b (128 experts, top-4, hidden
// 2,880, expert width 2,880) on one H100 (132 SMs, 128 × 256 tiles), 4 decodes: 16 routed rows;
// touched share 1 − (124/128)^4 = 0.11926, 15.27 experts of ~1.048 rows each.
//   up (N = 5,760): 23 tiles per expert × 15.27 = 351.1 tiles, 3 waves:
//     16 × 5,760 / (3 × 132 × 128 × 256) = 0.0071023; dense 16 rows: 23 tiles, split-K 5, 1 wave:
//     16 × 5,760 × 5 / (132 × 128 × 256) = 0.10653; ratio 1/15.
//   down (N = 2,880): 12 tiles × 15.27 = 183.2, 2 waves: 0.0053267; dense split-K 11: 0.11719; ratio 1/22.
//   time-weighted (up has twice the FLOPs): 3 / (2 × 15 + 22) = 3/52 = 0.057692.
// Padding every one of the 128 experts (as before) gave 0.0083: 7× the padding time.
TEST(MoePrecision, PaddingCountsTouchedExpertsHandChecked) {
  const InferContext ctx =
      make_infer_context(cat(), cat().model("gpt-oss-120b"), cat().gpu("h100-sxm"), cat().engine("vllm"));
  InferPlan p = fp4_plan();
  p.kv = Precision::bf16;
  EXPECT_NEAR(expert_gemm_efficiency(ctx, p, 4), 3.0 / 52, 1e-9);
  const StepCost c = step_cost(ctx, p, StepLoad{4, 1024, 0, 0});
  EXPECT_NEAR(c.moe.grouped_gemm_efficiency, 3.0 / 52, 1e-9);
  EXPECT_NEAR(c.moe.expert_padding_s, c.moe.expert_compute_s * (52.0 / 3 - 1), 1e-9 * c.moe.expert_padding_s);
}

// FP4 weights on Hopper are planned (weight-only) with a note, not refused; on Blackwell no note.
TEST(MoePrecision, Fp4OnHopperIsWeightOnlyWithANote) {
  EXPECT_EQ(weights_refusal(cat(), cat().gpu("h100-sxm"), Precision::fp4), "");
  const std::string note = weights_note(cat().gpu("h100-sxm"), Precision::fp4);
  EXPECT_NE(note.find("weight-only"), std::string::npos) << note;
  EXPECT_NE(note.find("bf16"), std::string::npos) << note;
  EXPECT_EQ(weights_note(cat().gpu("b200"), Precision::fp4), "");
  EXPECT_EQ(weights_note(cat().gpu("h100-sxm"), Precision::fp8), "");
  InferRequest r;
  r.model = "gpt-oss-120b";
  r.gpu = "h100-sxm";
  r.engine = "vllm";
  r.weights = "fp4";
  r.tp = 2;
  const InferAnswer a = answer_infer(cat(), r);
  ASSERT_TRUE(a.estimate.feasible);
  ASSERT_FALSE(a.notes.empty());
  EXPECT_NE(a.notes.back().find("weight-only"), std::string::npos);
}

// Attention math precision (docs/model/inference.md §4): FP8 only where the KV cache is FP8 and
// the attention projections are FP8/FP4-quantised (TensorRT-LLM's FP8 context FMHA needs the
// layer's FP8 or NVFP4 quantisation). gpt-oss-20b on one B200, --weights fp4 --kv fp8, one
// prompt of 1,024 tokens: its attention is 16-bit (modules_to_not_convert), so the math runs at
// the bf16 rate, half the FP8 one. Hand: 4 · 64 heads · 64 dims = 16,384 FLOPs per key per layer;
// 12 full layers at (1,024 + 1) / 2 = 512.5 keys per query, 12 sliding ones (window 128) at
// (128 · 129 / 2 + 896 · 128) / 1,024 = 120.0625; 1,024 × 16,384 × (12 × 512.5 + 12 × 120.0625)
// = 127,351,652,352 FLOPs, over B200's bf16 dense rate × gemm_fraction (the engine's 0.58).
TEST(MoePrecision, AttentionMathPrecisionHandChecked) {
  const InferContext ctx =
      make_infer_context(cat(), cat().model("gpt-oss-20b"), cat().gpu("b200"), cat().engine("tensorrt-llm-1.0"));
  ASSERT_EQ(ctx.kv.full_layers, 12);
  ASSERT_EQ(ctx.kv.sliding_layers, 12);
  ASSERT_EQ(ctx.kv.window, 128);
  EXPECT_DOUBLE_EQ(ctx.attention_flops_per_key_layer, 16384.0);
  const StepCost c = step_cost(ctx, fp4_plan(), StepLoad{0, 0, 1024, 1024});
  EXPECT_EQ(c.attention_precision, Precision::bf16);
  EXPECT_DOUBLE_EQ(c.attention_flops, 127351652352.0);
  const double bf16_rate = cat().gpu("b200").dense(Precision::bf16) * 0.58 * ctx.calibration_attention_scale;
  EXPECT_DOUBLE_EQ(ctx.gemm_fraction, 0.58);
  EXPECT_NEAR(c.attention_compute_s, 127351652352.0 / bf16_rate, 1e-15);
  // The rule itself: FP8 KV under FP8 or FP4 projections is FP8 math; under 16-bit ones, or with
  // a 16-bit KV cache, or on a GPU without FP8 tensor cores, 16-bit.
  const Gpu& b200 = cat().gpu("b200");
  const LinearWeightFormat oss = linear_weight_format(cat().model("gpt-oss-20b"), b200, Precision::fp4);
  const LinearWeightFormat qwen = linear_weight_format(cat().model("qwen3-30b-a3b"), b200, Precision::fp4);
  const LinearWeightFormat fp8 = linear_weight_format(cat().model("gpt-oss-20b"), b200, Precision::fp8);
  EXPECT_EQ(attention_math_precision(b200, oss, Precision::fp8), Precision::bf16);
  EXPECT_EQ(attention_math_precision(b200, qwen, Precision::fp8), Precision::fp8);
  EXPECT_EQ(attention_math_precision(b200, fp8, Precision::fp8), Precision::fp8);
  EXPECT_EQ(attention_math_precision(b200, qwen, Precision::bf16), Precision::bf16);
  const Gpu& a100 = cat().gpu("a100-sxm-80gb");
  EXPECT_NE(attention_math_precision(a100, linear_weight_format(cat().model("llama3.1-8b"), a100, Precision::fp8),
                                     Precision::fp8),
            Precision::fp8);
  // The NVFP4 model at the same load multiplies at FP8: exactly half the time for its FLOPs.
  const InferContext qctx =
      make_infer_context(cat(), cat().model("qwen3-30b-a3b"), b200, cat().engine("tensorrt-llm-1.0"));
  const StepCost q = step_cost(qctx, fp4_plan(), StepLoad{0, 0, 1024, 1024});
  EXPECT_EQ(q.attention_precision, Precision::fp8);
  EXPECT_NEAR(q.attention_compute_s,
              q.attention_flops / (b200.dense(Precision::fp8) * 0.58 * qctx.calibration_attention_scale), 1e-15);
}

}  // namespace
}  // namespace gpuplan
