// Megatron-Core's CUDA graphs in training (Plan::cuda_graph_scope, plan/cuda_graphs.h): which
// ops a scope captures, and the host time they no longer cost, by hand from the layer's ops.
#include "plan/cuda_graphs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>

#include "catalog/catalog.h"
#include "cost/roofline.h"
#include "plan/evaluate.h"
#include "plan/plan_json.h"
#include "workload/ops_mixer.h"

namespace gpuplan {
namespace {

TrainContext context(const Catalog& cat, std::string_view model) {
  TrainOptions o;
  o.framework = &resolve_framework(cat, "megatron-core");
  o.usable_memory_bytes = 1e13;
  return make_train_context(cat, *cat.find_model(model), cat.gpu("h100-sxm"), nullptr, nullptr, o);
}

// A dense layer: "attn" captures the input norm to the attention's residual add, "mlp" the rest;
// together one graph. "full_iteration" every op, with no launch per layer.
TEST(CudaGraphs, DenseLayerScopes) {
  const Catalog& cat = default_catalog();
  const TrainContext ctx = context(cat, "llama3.1-8b");
  Plan p;
  p.seq_len = 128;
  const OpShape s = train_op_shape(ctx, p);
  LayerOps ops;
  MixerPrefix mixer;
  build_layer_ops(*ctx.model, 0, s, ops, mixer);
  const ModelSpec& m = *ctx.model;
  ASSERT_GT(mixer.count, 0);
  EXPECT_EQ(std::string_view(ops.ops[static_cast<std::size_t>(mixer.count - 1)].name), "attn_residual");
  const GraphedOps attn = graphed_ops(m, 0, ops, mixer.count, kGraphAttn);
  EXPECT_EQ(attn.begin, 0);
  EXPECT_EQ(attn.end, mixer.count);
  EXPECT_EQ(attn.launches_per_pass, 1);
  const GraphedOps mlp = graphed_ops(m, 0, ops, mixer.count, kGraphMlp);
  EXPECT_EQ(mlp.begin, mixer.count);
  EXPECT_EQ(mlp.end, ops.count);
  const GraphedOps both = graphed_ops(m, 0, ops, mixer.count, kGraphAttn | kGraphMlp);
  EXPECT_EQ(both.begin, 0);
  EXPECT_EQ(both.end, ops.count);
  EXPECT_EQ(both.launches_per_pass, 1);
  // A MoE scope captures nothing of a dense layer.
  EXPECT_EQ(graphed_ops(m, 0, ops, mixer.count, kGraphMoeRouter).launches_per_pass, 0);
  const GraphedOps full = graphed_ops(m, 0, ops, mixer.count, kGraphFullIteration);
  EXPECT_EQ(full.end, ops.count);
  EXPECT_EQ(full.launches_per_pass, 0);
}

// A dropless MoE layer (gpt-oss): "attn" + "moe_router" + "moe_preprocess" (Megatron-Bridge's
// GB300 and B300 presets) capture the attention block, the pre-MLP norm, the router and its
// top-k: one graph up to the host sync of the token counts. The dispatch, experts and combine
// stay eager.
TEST(CudaGraphs, MoeRouterEndsAtTheHostSync) {
  const Catalog& cat = default_catalog();
  const TrainContext ctx = context(cat, "gpt-oss-120b");
  Plan p;
  p.seq_len = 4096;
  const OpShape s = train_op_shape(ctx, p);
  LayerOps ops;
  MixerPrefix mixer;
  build_layer_ops(*ctx.model, 0, s, ops, mixer);
  ASSERT_GT(ops.host_sync_at, mixer.count);
  const GraphedOps g = graphed_ops(*ctx.model, 0, ops, mixer.count, kGraphAttn | kGraphMoeRouter | kGraphMoePreprocess);
  EXPECT_EQ(g.begin, 0);
  EXPECT_EQ(g.end, ops.host_sync_at);
  EXPECT_EQ(g.launches_per_pass, 1);
  EXPECT_EQ(std::string_view(ops.ops[static_cast<std::size_t>(g.end - 1)].name), "router_topk");
  EXPECT_EQ(std::string_view(ops.ops[static_cast<std::size_t>(g.end)].name), "dispatch_permute");
  const GraphedOps router = graphed_ops(*ctx.model, 0, ops, mixer.count, kGraphMoeRouter);
  EXPECT_EQ(router.begin, mixer.count);
  EXPECT_EQ(router.end, ops.host_sync_at);
  // "mlp" is the dense layers' scope: nothing of a MoE layer.
  EXPECT_EQ(graphed_ops(*ctx.model, 0, ops, mixer.count, kGraphMlp).launches_per_pass, 0);
}

// Llama 3.1 8B, 128 tokens on one H100: every op is shorter than its launch, so each layer's
// forward is its host time, n launches (one per op, one per GEMM). Graphed whole ("attn",
// "mlp"), the host issues one launch per pass and the layer runs at its GPU time: the step's
// forward drops by 32 × (host − GPU) and its backward by 32 × (2n launches − backward GPU time).
TEST(CudaGraphs, CapturedLayersCostOneLaunchPerPass) {
  const Catalog& cat = default_catalog();
  const TrainContext ctx = context(cat, "llama3.1-8b");
  Plan eager;
  eager.seq_len = 128;
  Plan graphed = eager;
  graphed.cuda_graph_scope = kGraphAttn | kGraphMlp;
  const Estimate a = evaluate(ctx, eager);
  const Estimate b = evaluate(ctx, graphed);
  ASSERT_TRUE(a.feasible() && b.feasible());
  const OpShape s = train_op_shape(ctx, eager);
  LayerOps ops;
  build_layer_ops(*ctx.model, 0, s, ops);
  const OpTime t = layer_time(ctx.device, ops, s.gemm, s.act);
  const double launch = ctx.device.kernel_launch_s;
  ASSERT_GT(launch, 0);
  // The hand sums: the eager layer is host-bound both ways, the graphed one GPU-bound.
  ASSERT_GT(t.host_fwd_s, t.fwd_s);
  ASSERT_GT(t.host_bwd_s, t.bwd_s);
  ASSERT_GT(t.fwd_s, launch);
  ASSERT_GT(t.bwd_s, launch);
  EXPECT_NEAR(a.breakdown.forward_s - b.breakdown.forward_s, 32 * (t.host_fwd_s - t.fwd_s),
              1e-9 * a.breakdown.forward_s);
  EXPECT_NEAR(a.breakdown.backward_s - b.breakdown.backward_s, 32 * (t.host_bwd_s - t.bwd_s),
              1e-9 * a.breakdown.backward_s);
  EXPECT_LT(b.step_time_s, a.step_time_s);
  EXPECT_DOUBLE_EQ(b.memory.total_bytes, a.memory.total_bytes);
}

TEST(CudaGraphs, NamesAndPlanJson) {
  EXPECT_EQ(parse_cuda_graph_scope("moe_router"), kGraphMoeRouter);
  EXPECT_EQ(parse_cuda_graph_scope("full_iteration"), kGraphFullIteration);
  EXPECT_FALSE(parse_cuda_graph_scope("moe").has_value());
  EXPECT_EQ(cuda_graph_scope_name(kGraphMoePreprocess | kGraphAttn | kGraphMoeRouter),
            "attn,moe_router,moe_preprocess");
  Plan p;
  p.cuda_graph_scope = kGraphAttn | kGraphMamba;
  const nlohmann::ordered_json j = plan_json(p);
  EXPECT_EQ(j.at("cuda_graph_scope"), "attn,mamba");
  EXPECT_EQ(plan_from_json(nlohmann::json::parse(j.dump())).cuda_graph_scope, p.cuda_graph_scope);
  EXPECT_FALSE(plan_json(Plan{}).contains("cuda_graph_scope"));
}

}  // namespace
}  // namespace gpuplan
