// The fp8/fp4 scaling recipes (workload/scaling.h), DeepSeek-V3's low-precision activation
// cache and the parallel transformer block: closed forms by hand, the evaluator by the
// identities they imply, and the input errors users get.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/error.h"
#include "plan/evaluate.h"
#include "plan/plan_json.h"
#include "plan/train_request.h"
#include "workload/activations.h"
#include "workload/ops.h"
#include "workload/scaling.h"
#include "workload/test_models.h"

namespace gpuplan {
namespace {

using testing::DgxH100;

TEST(ScalingRecipe, BytesPerElementByHand) {
  // fp8 element 1 B; fp32 scale per 1×128 tile: +4/128 = 1.03125; E8M0 per 32: +1/32 =
  // 1.03125; NVFP4: 0.5 B + one E4M3 byte per 16 = 0.5625.
  EXPECT_DOUBLE_EQ(scaled_element_bytes(Precision::fp8, ScalingRecipe::delayed), 1);
  EXPECT_DOUBLE_EQ(scaled_element_bytes(Precision::fp8, ScalingRecipe::tensorwise), 1);
  EXPECT_DOUBLE_EQ(scaled_element_bytes(Precision::fp8, ScalingRecipe::blockwise), 1.03125);
  EXPECT_DOUBLE_EQ(scaled_element_bytes(Precision::fp8, ScalingRecipe::mxfp8), 1.03125);
  EXPECT_DOUBLE_EQ(scaled_element_bytes(Precision::fp4, ScalingRecipe::nvfp4), 0.5625);
  EXPECT_EQ(quantised_copies(ScalingRecipe::delayed), 1);
  EXPECT_EQ(quantised_copies(ScalingRecipe::mxfp8), 2);
  EXPECT_EQ(quantised_weight_copies(ScalingRecipe::blockwise), 1);  // 128×128 blocks serve the transpose
  EXPECT_EQ(quantised_weight_copies(ScalingRecipe::mxfp8), 2);
  EXPECT_EQ(default_scaling_recipe(Precision::fp4), ScalingRecipe::nvfp4);
  EXPECT_EQ(default_scaling_recipe(Precision::fp8), ScalingRecipe::delayed);
  EXPECT_TRUE(scaling_recipe_fits(ScalingRecipe::mxfp8, Precision::fp8));
  EXPECT_FALSE(scaling_recipe_fits(ScalingRecipe::mxfp8, Precision::fp4));
  EXPECT_FALSE(scaling_recipe_fits(ScalingRecipe::nvfp4, Precision::fp8));
  EXPECT_EQ(parse_scaling_recipe("MXFP8"), ScalingRecipe::mxfp8);
  EXPECT_EQ(parse_scaling_recipe("current"), ScalingRecipe::tensorwise);
  EXPECT_FALSE(parse_scaling_recipe("fp8").has_value());
}

double cast_fwd_bytes(const ModelSpec& m, const OpShape& s) {
  LayerOps ops;
  build_layer_ops(m, 0, s, ops);
  for (const Op& op : ops) {
    if (std::string(op.name) == "fp8_cast") return op.fwd_bytes;
  }
  return 0;
}

TEST(ScalingRecipe, CastTrafficFollowsCopies) {
  // Per element: per-tensor scaling reads 2 B and writes 1 B (3 B), delayed or current; mxfp8
  // writes two copies of 1.03125 B (2 + 2.0625 = 4.0625 B). The elements cast are the same.
  const ModelSpec m = testing::llama3_8b();
  OpShape s;
  s.seq_len = 4096;
  s.gemm = Precision::fp8;
  const double delayed = cast_fwd_bytes(m, s);
  ASSERT_GT(delayed, 0);
  s.scaling = ScalingRecipe::tensorwise;
  EXPECT_DOUBLE_EQ(cast_fwd_bytes(m, s), delayed);
  s.scaling = ScalingRecipe::mxfp8;
  EXPECT_NEAR(cast_fwd_bytes(m, s) / delayed, 4.0625 / 3, 1e-12);
}

TEST(ScalingRecipe, ActivationCacheKeepsSwigluInputsInFp8) {
  // DeepSeek-V3 MoE layer (index 3), one 4,096-token sequence, tp 1, no recompute, delayed fp8:
  // per routed pair and per shared-expert row the expert keeps its up-projection output
  // (2 × 2,048 at 2 B) and the activation output (2,048 at 1 B) = 10,240 B; the cache keeps only
  // the first at 1 B = 4,096 B. Rows: 4,096 × (8 routed + 1 shared) = 36,864. The attention
  // output (128 heads × 128 at 2 B = 32,768 B per token) drops to 1.5 B: 24,576 B.
  // Saving = 36,864 × 6,144 + 4,096 × 8,192 = 226,492,416 + 33,554,432 = 260,046,848 B.
  const ModelSpec m = testing::deepseek_v3();
  OpShape s;
  s.seq_len = 4096;
  s.gemm = Precision::fp8;
  const double plain = layer_activations(m, 3, s, Recompute::none).stored_bytes;
  s.low_precision_act_cache = true;
  const double cached = layer_activations(m, 3, s, Recompute::none).stored_bytes;
  EXPECT_NEAR(plain - cached, 260046848.0, 1.0);
  // In bf16 there is no fp8 format to keep them in: the flag changes nothing.
  s.gemm = Precision::bf16;
  const double bf16_cached = layer_activations(m, 3, s, Recompute::none).stored_bytes;
  s.low_precision_act_cache = false;
  EXPECT_DOUBLE_EQ(bf16_cached, layer_activations(m, 3, s, Recompute::none).stored_bytes);
}

Plan tp8_plan() {
  Plan p;
  p.tp = 8;
  p.sp = true;
  p.micro_batch = 1;
  p.global_batch = 4;
  p.seq_len = 4096;
  return p;
}

TEST(ParallelBlock, OneTensorParallelReductionPerLayer) {
  // A sequential block reduces the attention and the MLP outputs separately (2 per layer and
  // pass); the parallel block adds them first (1): TP communication halves, nothing else moves.
  DgxH100 f;
  ModelSpec m = testing::gpt3_175b();
  m.layers = 8;
  const TrainContext seq_ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  const Estimate seq = evaluate(seq_ctx, tp8_plan());
  ASSERT_TRUE(seq.feasible()) << seq.reason_text();
  m.parallel_block = true;
  const TrainContext par_ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  const Estimate par = evaluate(par_ctx, tp8_plan());
  ASSERT_TRUE(par.feasible()) << par.reason_text();
  EXPECT_NEAR(par.breakdown.tp.total_s / seq.breakdown.tp.total_s, 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(par.breakdown.forward_s, seq.breakdown.forward_s);
  EXPECT_DOUBLE_EQ(par.memory.total_bytes, seq.memory.total_bytes);
}

TrainRequest small_request(const std::string& gpu) {
  TrainRequest r;
  r.model = "llama3-8b";
  r.gpu = gpu;
  r.gpus = 8;
  r.micro_batch = 1;
  r.global_batch = 16;
  r.seq_len = 4096;
  return r;
}

std::string error_of(const TrainRequest& r) {
  try {
    answer_train(default_catalog(), r);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ScalingRecipe, InputErrorsNameTheFlagAndTheFix) {
  TrainRequest r = small_request("h100-sxm");
  r.precision = "fp8";
  r.fp8_recipe = "mxfp8";
  const std::string mx = error_of(r);
  EXPECT_NE(mx.find("--fp8-recipe mxfp8"), std::string::npos) << mx;
  EXPECT_NE(mx.find("h100-sxm"), std::string::npos) << mx;
  EXPECT_NE(mx.find("blockwise"), std::string::npos) << mx;  // the fix
  r.fp8_recipe = "fp8";
  EXPECT_NE(error_of(r).find("--fp8-recipe 'fp8'"), std::string::npos);
  r.precision = "bf16";
  r.fp8_recipe = "tensorwise";
  EXPECT_NE(error_of(r).find("--precision fp8"), std::string::npos);
  r.fp8_recipe.clear();
  r.fp8_activation_cache = true;
  EXPECT_NE(error_of(r).find("--fp8-activation-cache"), std::string::npos);
  r.fp8_activation_cache = false;
  r.fp8_params = true;  // fp8 primary weights on a bf16 plan
  const std::string params = error_of(r);
  EXPECT_NE(params.find("--fp8-params with --precision bf16"), std::string::npos) << params;
  EXPECT_NE(params.find("use --precision fp8"), std::string::npos) << params;
  TrainRequest fp4 = small_request("h100-sxm");
  fp4.precision = "fp4";
  const std::string no_fp4 = error_of(fp4);
  EXPECT_NE(no_fp4.find("--precision fp4"), std::string::npos) << no_fp4;
  EXPECT_NE(no_fp4.find("no fp4 tensor cores"), std::string::npos) << no_fp4;
}

TEST(ScalingRecipe, Nvfp4RunsAtTheFp4RateOnBlackwell) {
  // B200: NVFP4 GEMMs at the fp4 peak (twice fp8's), the weights' quantised copies at
  // 2 × 0.5625 B instead of 1 B: a faster step than delayed-scaling fp8, and the plan says nvfp4.
  TrainRequest r = small_request("b200");
  r.precision = "fp8";
  const TrainAnswer fp8 = answer_train(default_catalog(), r);
  r.precision = "fp4";
  const TrainAnswer fp4 = answer_train(default_catalog(), r);
  ASSERT_TRUE(fp8.estimate.feasible());
  ASSERT_TRUE(fp4.estimate.feasible());
  EXPECT_EQ(fp4.setup.plan.scaling, ScalingRecipe::nvfp4);
  EXPECT_LT(fp4.estimate.breakdown.forward_s, fp8.estimate.breakdown.forward_s);
  EXPECT_GT(fp4.estimate.breakdown.forward_s, 0.5 * fp8.estimate.breakdown.forward_s);  // not every op is a GEMM
  r.precision = "fp8";
  r.fp8_recipe = "mxfp8";
  const TrainAnswer mx = answer_train(default_catalog(), r);
  ASSERT_TRUE(mx.estimate.feasible());
  // MXFP8 casts more (two scaled copies) at the same GEMM rate: slower than delayed scaling.
  EXPECT_GT(mx.estimate.breakdown.forward_s, fp8.estimate.breakdown.forward_s);
  const nlohmann::json j = nlohmann::json::parse(plan_json(mx.setup.plan).dump());
  EXPECT_EQ(j.at("fp8_recipe"), "mxfp8");
  EXPECT_EQ(plan_from_json(j).scaling, ScalingRecipe::mxfp8);
  EXPECT_FALSE(plan_json(fp8.setup.plan).contains("fp8_recipe"));
  nlohmann::json bad = j;
  bad["fp8_recipe"] = "nvfp4";  // an fp4 recipe on an fp8 plan
  EXPECT_THROW(plan_from_json(bad), Error);
}

TEST(ScalingRecipe, Fp8PrimaryWeightsKeepOnlyTheQuantisedCopies) {
  // Llama 3 8B on 8 B200, fp8: with --fp8-params the fp8 GEMMs' weights lose their 16-bit copy
  // (2 B per such parameter) and keep the quantised ones: 1 B (delayed), 2 × (1 + 1/32) B
  // (mxfp8). The GEMM weights are every parameter but the embedding, the head and the norms.
  for (const char* recipe : {"delayed", "mxfp8"}) {
    TrainRequest r = small_request("b200");
    r.precision = "fp8";
    r.fp8_recipe = recipe;
    r.zero = 1;
    const TrainAnswer bf16_copy = answer_train(default_catalog(), r);
    r.fp8_params = true;
    const TrainAnswer fp8_only = answer_train(default_catalog(), r);
    ASSERT_TRUE(bf16_copy.estimate.valid());
    ASSERT_TRUE(fp8_only.estimate.valid());
    const ModelSpec& m = *bf16_copy.setup.ctx.model;
    const double h = static_cast<double>(m.hidden);
    const double head_dim = m.head_dim > 0 ? static_cast<double>(m.head_dim) : h / static_cast<double>(m.heads);
    const double kv = static_cast<double>(m.kv_heads) * head_dim;
    const double layer_gemm_params = h * (h + 2 * kv) + h * h + 3 * h * static_cast<double>(m.ffn_hidden);
    const double gemm_params = layer_gemm_params * static_cast<double>(m.layers);
    EXPECT_NEAR(bf16_copy.estimate.memory.weights_bytes - fp8_only.estimate.memory.weights_bytes, 2 * gemm_params,
                1e-6 * gemm_params)
        << recipe;
    // Time: the same compute; the plan says so in its JSON and reads back.
    EXPECT_DOUBLE_EQ(fp8_only.estimate.breakdown.forward_s, bf16_copy.estimate.breakdown.forward_s);
    const nlohmann::json j = nlohmann::json::parse(plan_json(fp8_only.setup.plan).dump());
    EXPECT_EQ(j.at("fp8_params"), true);
    EXPECT_TRUE(plan_from_json(j).fp8_params);
    EXPECT_FALSE(plan_json(bf16_copy.setup.plan).contains("fp8_params"));
  }
}

TEST(ScalingRecipe, Fp8PrimaryWeightsGatherInFp8UnderPerTensorScaling) {
  // The distributed optimizer's all-gather of the updated weights moves 1 B per fp8 GEMM weight
  // instead of 2 under per-tensor scaling; mxfp8 gathers 16-bit values (Megatron-Core's
  // reuse_grad_buf_for_mxfp8_param_ag), so its gather is unchanged.
  TrainRequest r = small_request("b200");
  r.precision = "fp8";
  r.zero = 1;
  r.fp8_recipe = "tensorwise";
  const TrainAnswer base = answer_train(default_catalog(), r);
  r.fp8_params = true;
  const TrainAnswer per_tensor = answer_train(default_catalog(), r);
  EXPECT_LT(per_tensor.estimate.breakdown.dp.total_s, base.estimate.breakdown.dp.total_s);
  r.fp8_recipe = "mxfp8";
  const TrainAnswer mx = answer_train(default_catalog(), r);
  r.fp8_params = false;
  const TrainAnswer mx_base = answer_train(default_catalog(), r);
  EXPECT_DOUBLE_EQ(mx.estimate.breakdown.dp.total_s, mx_base.estimate.breakdown.dp.total_s);
}

}  // namespace
}  // namespace gpuplan
