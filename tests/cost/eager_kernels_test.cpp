// Eager layers as the host issues them (cost/eager_kernels.h) and the early-stopping recompute
// of PyTorch's non-reentrant checkpoint (cost/checkpoint_recompute.h): the counts by hand from
// data/fitted/frameworks/pytorch.toml, and their effect on a step.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/error.h"
#include "cost/checkpoint_recompute.h"
#include "cost/eager_kernels.h"
#include "cost/roofline.h"
#include "plan/evaluate.h"
#include "workload/ops.h"

namespace gpuplan {
namespace eager_kernels_test {

OpShape eager_shape(double tokens) {
  OpShape s;
  s.micro_batch = 1;
  s.seq_len = tokens;
  s.eager_elementwise = true;
  return s;
}

// The pytorch framework's table over a Llama layer: 6 + 9 + 12 + 2 + 2 + 1 + 6 + 6 + 2 + 2 + 1 =
// 49 kernels forward, 14 + 14 + 24 + 2 + 3 + 2 + 14 + 9 + 3 + 3 + 2 = 90 backward (the
// derivation is in the data file), every op of the layer counted.
TEST(EagerKernels, LlamaLayerCountsByHand) {
  const Catalog& cat = default_catalog();
  const Framework& fw = resolve_framework(cat, "pytorch");
  const ModelSpec& m = *cat.find_model("llama3.1-8b");
  ASSERT_TRUE(eager_kernels_apply(m));
  LayerOps ops;
  build_layer_ops(m, 0, eager_shape(2048), ops);
  double fwd = 0;
  double bwd = 0;
  for (const Op& op : ops) {
    KernelCount k;
    ASSERT_TRUE(eager_kernel_count(fw.eager_kernels, op, k)) << op.name;
    fwd += k.fwd;
    bwd += k.bwd;
  }
  EXPECT_DOUBLE_EQ(fwd, 49);
  EXPECT_DOUBLE_EQ(bwd, 90);
}

TEST(EagerKernels, HostTimeIsKernelsTimesTheHostTimePerKernel) {
  EagerKernels t;
  t.rmsnorm = {6, 14};
  Op norm;
  norm.name = "attn_norm";
  double fwd_s = -1;
  double bwd_s = -1;
  // Off (no host time per kernel): the caller's figures stand.
  EXPECT_FALSE(eager_host_time_s(t, norm, fwd_s, bwd_s));
  EXPECT_DOUBLE_EQ(fwd_s, -1);
  t.host_s_per_kernel = 20e-6;
  ASSERT_TRUE(eager_host_time_s(t, norm, fwd_s, bwd_s));
  EXPECT_DOUBLE_EQ(fwd_s, 120e-6);
  EXPECT_DOUBLE_EQ(bwd_s, 280e-6);
  // Ops the table does not know (a MoE router, the MLA projections) keep one issue per op.
  Op router;
  router.name = "router";
  EXPECT_FALSE(eager_host_time_s(t, router, fwd_s, bwd_s));
}

// GPT-3-style layers (LayerNorm, GeLU, learned positions): single native kernels eager too.
TEST(EagerKernels, OnlyLlamaStyleLayers) {
  const Catalog& cat = default_catalog();
  EXPECT_TRUE(eager_kernels_apply(*cat.find_model("llama3.1-8b")));
  ModelSpec gpt = *cat.find_model("llama3.1-8b");
  gpt.norm = NormKind::layernorm;
  EXPECT_FALSE(eager_kernels_apply(gpt));
  ModelSpec gelu = *cat.find_model("llama3.1-8b");
  gelu.mlp = MlpKind::gelu;
  EXPECT_FALSE(eager_kernels_apply(gelu));
}

// A dense layer in forward order: attn_norm, qkv_proj, rope, attention, out_proj, attn_residual,
// mlp_norm, mlp_up, mlp_act, mlp_down, mlp_residual. The last op that saves a tensor is
// mlp_down (its inputs are saved before it runs), so the recompute runs ops 0..8.
TEST(CheckpointRecompute, StopsBeforeTheLastGemm) {
  const Catalog& cat = default_catalog();
  LayerOps ops;
  build_layer_ops(*cat.find_model("llama3.1-8b"), 0, eager_shape(2048), ops);
  ASSERT_EQ(ops.count, 11);
  const int n = early_stop_recompute_ops(ops);
  EXPECT_EQ(n, 9);
  EXPECT_STREQ(ops.ops[9].name, "mlp_down");
  EXPECT_FALSE(ops.ops[10].saves_for_backward);  // the residual add
  EXPECT_FALSE(ops.ops[5].saves_for_backward);
  // Nothing saved at all: nothing to stop on, the whole forward.
  LayerOps adds;
  adds.add().saves_for_backward = false;
  adds.add().saves_for_backward = false;
  EXPECT_EQ(early_stop_recompute_ops(adds), 2);
}

// The pytorch framework's full recompute against the same framework rerunning the whole forward:
// the step's recompute is shorter by the down projection and the residual add of every layer
// (GPU-bound at 8,192 tokens of an 8B model, fused element-wise chains).
TEST(CheckpointRecompute, PytorchRecomputeSkipsTheDownProjection) {
  const Catalog& cat = default_catalog();
  const ModelSpec& m = *cat.find_model("llama3.1-8b");
  const Gpu& gpu = cat.gpu("h200-sxm");
  Framework early = resolve_framework(cat, "pytorch");
  ASSERT_TRUE(early.recompute_early_stop);
  Framework whole = early;
  whole.recompute_early_stop = false;
  Plan p;
  p.seq_len = 8192;
  p.recompute = Recompute::full;
  auto run = [&](const Framework& f) {
    TrainOptions o;
    o.framework = &f;
    o.usable_memory_bytes = 1e13;
    const TrainContext ctx = make_train_context(cat, m, gpu, nullptr, nullptr, o);
    return std::make_pair(evaluate(ctx, p), ctx.device);
  };
  const auto [with_stop, dev] = run(early);
  const auto [without, dev2] = run(whole);
  OpShape s;
  s.seq_len = 8192;
  LayerOps ops;
  build_layer_ops(m, 0, s, ops);
  const double skipped = op_time(dev, ops.ops[9], s.gemm, s.act).fwd_s + op_time(dev, ops.ops[10], s.gemm, s.act).fwd_s;
  EXPECT_GT(skipped, 0);
  const double layers = static_cast<double>(m.layers);
  EXPECT_NEAR(without.breakdown.recompute_s - with_stop.breakdown.recompute_s, layers * skipped,
              1e-9 * without.breakdown.recompute_s);
  EXPECT_LT(with_stop.step_time_s, without.step_time_s);
}

const char* kEagerFrameworkToml = R"toml(kind = "framework"
id = "eager-fw"
name = "An eager framework"
source = "test"
retrieved = "2026-11-26"
[kernel]
launch_us = 60
[eager_kernels]
host_us = 20
rmsnorm = [6, 14]
qkv_proj = [9, 14]
rope = [12, 24]
attention = [2, 2]
out_proj = [2, 3]
residual = [1, 2]
mlp_up = [6, 9]
mlp_act = [2, 3]
mlp_down = [2, 3]
[recompute]
early_stop = true
)toml";

TEST(EagerKernels, ParsedFromTheFrameworkFile) {
  Catalog c;
  load_catalog_text(c, kEagerFrameworkToml, "fw.toml", false);
  const Framework& f = c.frameworks.front();
  EXPECT_DOUBLE_EQ(f.eager_kernels.host_s_per_kernel, 20e-6);
  EXPECT_DOUBLE_EQ(f.eager_kernels.rope.fwd, 12);
  EXPECT_DOUBLE_EQ(f.eager_kernels.rope.bwd, 24);
  EXPECT_DOUBLE_EQ(f.eager_kernels.mlp_up.bwd, 9);
  EXPECT_TRUE(f.recompute_early_stop);
  // A count that is not [forward, backward] names the key.
  std::string bad = kEagerFrameworkToml;
  bad.replace(bad.find("rope = [12, 24]"), 15, "rope = [12]    ");
  Catalog c2;
  try {
    load_catalog_text(c2, bad, "fw.toml", false);
    ADD_FAILURE() << "rope = [12] accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rope"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[forward, backward]"), std::string::npos) << e.what();
  }
  // The reference frameworks have neither.
  const Framework& megatron = resolve_framework(default_catalog(), "megatron-core");
  EXPECT_DOUBLE_EQ(megatron.eager_kernels.host_s_per_kernel, 0);
  EXPECT_FALSE(megatron.recompute_early_stop);
}

}  // namespace eager_kernels_test
}  // namespace gpuplan
