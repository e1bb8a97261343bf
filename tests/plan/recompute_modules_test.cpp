// Megatron-Core's recompute modules (Plan::recompute_modules) and gpt-oss's unfused kernels
// under Megatron-Core (OpShape::rope_unfused, glu_clamp_unfused), end to end through evaluate.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>

#include "catalog/catalog.h"
#include "cost/roofline.h"
#include "plan/evaluate.h"
#include "plan/plan_json.h"

namespace gpuplan {
namespace {

TrainContext gpt_oss_context(const Catalog& cat, const Framework* fw) {
  TrainOptions o;
  o.framework = fw;
  o.usable_memory_bytes = 1e13;
  return make_train_context(cat, *cat.find_model("gpt-oss-120b"), cat.gpu("h100-sxm"), nullptr, nullptr, o);
}

Plan one_gpu_plan() {
  Plan p;
  p.seq_len = 4096;
  return p;
}

double fwd_s_of(const TrainContext& ctx, const LayerOps& ops, const OpShape& s, std::string_view name) {
  for (const Op& op : ops) {
    if (name == op.name) return op_time(ctx.device, op, s.gemm, s.act).fwd_s;
  }
  ADD_FAILURE() << name << " not in the layer";
  return 0;
}

// Megatron-Core runs gpt-oss's YaRN RoPE and its GLU clamps unfused; a framework that does not
// say so (torchtitan's entry) and a model without YaRN or a clamp (Llama 3.1 8B) keep the fused ops.
TEST(RecomputeModules, GptOssUnfusedKernelsUnderMegatronCore) {
  const Catalog& cat = default_catalog();
  const TrainContext mcore = gpt_oss_context(cat, &resolve_framework(cat, "megatron-core"));
  const OpShape s = train_op_shape(mcore, one_gpu_plan());
  EXPECT_TRUE(s.rope_unfused);
  EXPECT_TRUE(s.glu_clamp_unfused);
  const TrainContext titan = gpt_oss_context(cat, &resolve_framework(cat, "torchtitan"));
  EXPECT_FALSE(train_op_shape(titan, one_gpu_plan()).rope_unfused);
  EXPECT_FALSE(train_op_shape(titan, one_gpu_plan()).glu_clamp_unfused);
  TrainOptions o;
  o.usable_memory_bytes = 1e13;
  const TrainContext llama =
      make_train_context(cat, *cat.find_model("llama3.1-8b"), cat.gpu("h100-sxm"), nullptr, nullptr, o);
  EXPECT_FALSE(train_op_shape(llama, one_gpu_plan()).rope_unfused);
  EXPECT_FALSE(train_op_shape(llama, one_gpu_plan()).glu_clamp_unfused);
}

// "layernorm" and "moe_act" (Megatron-Bridge's GPT-OSS presets on GB200, B200 and H100): the
// backward reruns the forward of the two norms, the clamps and the activation of every layer, so
// the step's recompute is 36 × that (each op GPU-bound: 4,096 tokens on one H100), and nothing
// else changes but memory: those outputs are no longer kept.
TEST(RecomputeModules, LayernormAndMoeActRerunTheirForward) {
  const Catalog& cat = default_catalog();
  const TrainContext ctx = gpt_oss_context(cat, &resolve_framework(cat, "megatron-core"));
  Plan none = one_gpu_plan();
  Plan modules = none;
  modules.recompute_modules = kRecomputeLayernorm | kRecomputeMoeAct;
  const Estimate a = evaluate(ctx, none);
  const Estimate b = evaluate(ctx, modules);
  ASSERT_TRUE(a.feasible() && b.feasible());
  EXPECT_DOUBLE_EQ(a.breakdown.recompute_s, 0);
  const OpShape s = train_op_shape(ctx, none);
  LayerOps ops;
  build_layer_ops(*ctx.model, 0, s, ops);
  const double per_layer = fwd_s_of(ctx, ops, s, "attn_norm") + fwd_s_of(ctx, ops, s, "mlp_norm") +
                           fwd_s_of(ctx, ops, s, "expert_act_clamp") + fwd_s_of(ctx, ops, s, "expert_act");
  EXPECT_NEAR(b.breakdown.recompute_s, 36 * per_layer, 1e-9 * b.breakdown.recompute_s);
  EXPECT_NEAR(b.breakdown.backward_s - a.breakdown.backward_s, 36 * per_layer, 1e-9 * b.breakdown.backward_s);
  EXPECT_DOUBLE_EQ(b.breakdown.forward_s, a.breakdown.forward_s);
  EXPECT_LT(b.memory.total_bytes, a.memory.total_bytes);
  // Under full recompute the modules add nothing.
  Plan full = none;
  full.recompute = Recompute::full;
  Plan full_modules = full;
  full_modules.recompute_modules = modules.recompute_modules;
  EXPECT_DOUBLE_EQ(evaluate(ctx, full_modules).step_time_s, evaluate(ctx, full).step_time_s);
}

TEST(RecomputeModules, NamesAndPlanJson) {
  EXPECT_EQ(parse_recompute_module("moe_act"), kRecomputeMoeAct);
  EXPECT_EQ(parse_recompute_module("mla_up_proj"), kRecomputeMlaUpProj);
  EXPECT_FALSE(parse_recompute_module("attention").has_value());
  EXPECT_EQ(recompute_modules_name(kRecomputeMoeAct | kRecomputeLayernorm), "layernorm,moe_act");
  EXPECT_EQ(recompute_modules_name(0), "");
  Plan p;
  p.recompute_modules = kRecomputeLayernorm | kRecomputeMoe | kRecomputeCoreAttn;
  const nlohmann::ordered_json j = plan_json(p);
  EXPECT_EQ(j.at("recompute_modules"), "layernorm,moe,core_attn");
  EXPECT_EQ(plan_from_json(nlohmann::json::parse(j.dump())).recompute_modules, p.recompute_modules);
  EXPECT_FALSE(plan_json(Plan{}).contains("recompute_modules"));
}

}  // namespace
}  // namespace gpuplan
