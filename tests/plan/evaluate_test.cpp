// The training evaluator: hand checks and the properties of issue 4 (TP = PP = DP = 1 equals
// the single-GPU result; sharding conserves FLOPs; more bandwidth is never slower; memory never
// falls as the micro-batch grows).
#include <cstring>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "plan/evaluate.h"
#include "plan/evaluate_internal.h"
#include "plan/resolve.h"
#include "workload/params.h"
#include "workload/test_models.h"

namespace gpuplan {
namespace {

struct Fixture {
  const Catalog& catalog = default_catalog();
  const Gpu& gpu = catalog.gpu("h100-sxm");
  const System& system = catalog.system("dgx-h100");
};

Plan base_plan(int seq = 4096) {
  Plan p;
  p.seq_len = seq;
  p.micro_batch = 1;
  return p;
}

TEST(Evaluate, OneGpuEqualsTheSingleGpuSumOfOps) {
  Fixture f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext alone = make_train_context(f.catalog, m, f.gpu, nullptr, nullptr);
  const TrainContext in_node = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan p = base_plan();
  p.global_batch = 4;
  const Estimate a = evaluate(alone, p);
  const Estimate b = evaluate(in_node, p);
  ASSERT_TRUE(a.valid()) << a.reason_text();
  EXPECT_DOUBLE_EQ(a.step_time_s, b.step_time_s);
  // By hand: 4 micro-batches × (embedding + 32 layers + head, forward and backward), plus
  // the Adam step; no communication, no bubble.
  OpShape shape;
  shape.seq_len = 4096;
  LayerOps layer, emb, head;
  build_layer_ops(m, 0, shape, layer);
  build_embedding_ops(m, shape, emb);
  build_head_ops(m, shape, head);
  auto pass = [&](const LayerOps& ops) {
    const OpTime t = layer_time(alone.device, ops, shape.gemm, shape.act);
    return issue_bound_s(t.fwd_s, t.host_fwd_s) + issue_bound_s(t.bwd_s, t.host_bwd_s);
  };
  const double tau = 32 * pass(layer) + pass(emb) + pass(head);
  const double params = 32 * layer.params() + emb.params() + head.params();
  // The fused step streams at the family's measured share (Hopper: optimizer_bw_fraction).
  const double optimizer = params * (2 + 2 * 12 + 2) / alone.device.optimizer_bw_bytes_per_s;
  EXPECT_NEAR(a.step_time_s, 4 * tau + optimizer, 1e-9 * a.step_time_s);
  EXPECT_EQ(a.breakdown.bubble_s, 0);
  EXPECT_EQ(a.breakdown.dp.total_s, 0);
}

TEST(Evaluate, ShardingConservesTotalFlops) {
  Fixture f;
  const ModelSpec m = testing::gpt3_175b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  double reference = 0;
  for (auto [tp, pp, dp] : std::vector<std::array<int, 3>>{{1, 1, 8}, {8, 1, 1}, {2, 4, 1}, {4, 2, 1}, {1, 8, 1}}) {
    Plan p = base_plan(2048);
    p.tp = tp;
    p.pp = pp;
    p.dp = dp;
    p.global_batch = 64;
    const Estimate e = evaluate(ctx, p);
    ASSERT_TRUE(e.valid()) << e.reason_text();
    if (reference == 0) reference = e.hardware_flops_per_step;
    EXPECT_NEAR(e.hardware_flops_per_step / reference, 1.0, 1e-9) << tp << " " << pp << " " << dp;
    // Model FLOPs: 6N + causal attention per token (params.h), whatever the layout.
    EXPECT_NEAR(e.model_flops_per_step, 64 * 2048 * train_flops_per_token(m, 2048), 1e-6 * e.model_flops_per_step);
  }
}

TEST(Evaluate, MoreBandwidthIsNeverSlower) {
  Fixture f;
  Catalog faster = f.catalog;
  for (System& s : faster.systems) {
    s.scaleup_bw_uni_bytes_per_s *= 2;
    s.nic_bw_uni_bytes_per_s *= 2;
  }
  const ModelSpec m = testing::gpt3_175b();
  const TrainContext slow_ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  const TrainContext fast_ctx = make_train_context(faster, m, f.gpu, &faster.system("dgx-h100"), nullptr);
  for (int zero : {0, 1, 3}) {
    for (auto [tp, pp, dp] : std::vector<std::array<int, 3>>{{8, 4, 4}, {4, 8, 4}, {8, 1, 16}}) {
      Plan p = base_plan(2048);
      p.tp = tp;
      p.pp = pp;
      p.dp = dp;
      p.zero = zero;
      p.sp = true;
      p.global_batch = 256;
      const Estimate slow = evaluate(slow_ctx, p);
      const Estimate fast = evaluate(fast_ctx, p);
      ASSERT_TRUE(slow.valid() && fast.valid()) << slow.reason_text() << fast.reason_text();
      EXPECT_LE(fast.step_time_s, slow.step_time_s) << tp << " " << pp << " " << dp << " zero " << zero;
    }
  }
}

TEST(Evaluate, MemoryNeverFallsAsTheMicroBatchGrows) {
  Fixture f;
  for (const ModelSpec& m : {testing::llama3_8b(), testing::mixtral_8x7b()}) {
    const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
    for (Recompute r : {Recompute::none, Recompute::full}) {
      double previous = 0;
      for (int mb : {1, 2, 4, 8}) {
        Plan p = base_plan(4096);
        p.tp = 2;
        p.pp = 2;
        p.dp = 2;
        p.ep = m.is_moe() ? 2 : 1;
        p.micro_batch = mb;
        p.global_batch = 64;
        p.recompute = r;
        const Estimate e = evaluate(ctx, p);
        ASSERT_TRUE(e.valid()) << e.reason_text();
        EXPECT_GE(e.memory.total_bytes, previous) << m.id << " mb " << mb;
        previous = e.memory.total_bytes;
      }
    }
  }
}

TEST(Evaluate, PipelineBubbleFollowsNarayanan) {
  Fixture f;
  const ModelSpec m = testing::gpt3_175b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan p = base_plan(2048);
  p.tp = 8;
  p.pp = 8;
  p.vp = 2;
  p.dp = 1;
  p.global_batch = 32;
  const Estimate e = evaluate(ctx, p);
  ASSERT_TRUE(e.valid()) << e.reason_text();
  // (p − 1) / (v · m) for equal stages; here the last rank's head (and the first rank's
  // embedding) make the stages uneven, and the bubble is (Σ τ_i − τ_max) / v
  // (train_eval::pipeline_bubble_s): the 6 interior ranks and the first are a little lighter
  // than the last, so the fraction is a little under 7 / 64 and above 6 / 64.
  EXPECT_LT(e.bubble_fraction, 7.0 / (2 * 32));
  EXPECT_GT(e.bubble_fraction, 6.0 / (2 * 32));
  EXPECT_GT(e.breakdown.bubble_s, 0);
  // Interleaving shrinks the bubble.
  p.vp = 1;
  EXPECT_GT(evaluate(ctx, p).breakdown.bubble_s, e.breakdown.bubble_s);
}

TEST(Evaluate, InfeasiblePlansAreValuesWithAReason) {
  Fixture f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan p = base_plan();
  p.tp = 3;
  Estimate e = evaluate(ctx, p);
  EXPECT_FALSE(e.feasible());
  EXPECT_FALSE(e.valid());
  EXPECT_NE(std::strstr(e.reason_text(), "TP 3"), nullptr) << e.reason_text();
  p = base_plan();
  p.ep = 2;
  EXPECT_NE(std::strstr(evaluate(ctx, p).reason_text(), "MoE"), nullptr);
  // Does not fit: 405B-class weights on 8 GPUs without sharding.
  const ModelSpec big = testing::gpt3_175b();
  const TrainContext big_ctx = make_train_context(f.catalog, big, f.gpu, &f.system, nullptr);
  p = base_plan(2048);
  p.dp = 8;
  e = evaluate(big_ctx, p);
  EXPECT_TRUE(e.valid());
  EXPECT_FALSE(e.fits());
  EXPECT_FALSE(e.feasible());
  EXPECT_EQ(e.bottleneck, Bottleneck::memory);
  EXPECT_NE(std::strstr(e.reason_text(), "GiB"), nullptr);
  // ZeRO-3 over the 8 GPUs shards the 16 bytes per parameter eight ways.
  p.zero = 3;
  EXPECT_LT(evaluate(big_ctx, p).memory.optimizer_bytes, e.memory.optimizer_bytes / 7.9);
}

TEST(Evaluate, ResolverPicksTheFastestPlanThatFits) {
  Fixture f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan p = base_plan(8192);
  p.dp = 8;
  p.global_batch = 64;
  PlanUnknowns u;
  u.micro_batch = true;
  u.recompute = true;
  u.zero = true;
  const Resolved r = resolve_fastest(ctx, p, u, 8);
  ASSERT_TRUE(r.estimate.feasible()) << r.estimate.reason_text();
  EXPECT_GT(r.tried, 10);
  // No candidate that fits is faster.
  for (int mb : {1, 2, 4, 8}) {
    for (int zero : {0, 1, 2, 3}) {
      Plan q = p;
      q.micro_batch = mb;
      q.zero = zero;
      const Estimate e = evaluate(ctx, q);
      if (e.feasible()) {
        EXPECT_GE(e.step_time_s, r.estimate.step_time_s);
      }
    }
  }
}


// A published run whose source is silent on sequence parallelism and recompute: resolved as its
// framework would (SP with TP, no recompute while that fits), not as the fastest setting, and the
// spread over those two fields is reported (plan/resolve.h).
TEST(Evaluate, ResolverWithDefaultsTakesTheFrameworkSettingsAndReportsTheSpread) {
  Fixture f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan p = base_plan(8192);
  p.tp = 2;
  p.dp = 4;
  p.zero = 1;
  p.global_batch = 64;
  PlanUnknowns u;
  u.sp = true;
  u.recompute = true;
  SettingDefaults with_tp;
  with_tp.sp_with_tp = true;
  with_tp.recompute = Recompute::none;
  const Resolved r = resolve_with_defaults(ctx, p, u, 8, with_tp);
  ASSERT_TRUE(r.estimate.feasible()) << r.estimate.reason_text();
  EXPECT_TRUE(r.plan.sp);
  EXPECT_EQ(r.plan.recompute, Recompute::none);
  // Full recompute (one more forward) is among the settings that fit: the spread covers it.
  Plan full = r.plan;
  full.recompute = Recompute::full;
  const Estimate e_full = evaluate(ctx, full);
  ASSERT_TRUE(e_full.feasible());
  EXPECT_DOUBLE_EQ(r.slowest_step_s, std::max(r.slowest_step_s, e_full.step_time_s));
  EXPECT_GE(r.slowest_step_s, e_full.step_time_s);
  EXPECT_LE(r.fastest_step_s, r.estimate.step_time_s);
  EXPECT_GT(r.slowest_step_s, 1.2 * r.fastest_step_s);
  // A framework without sequence parallelism: off although TP is 2 (and SP would be faster).
  SettingDefaults off = with_tp;
  off.sp_with_tp = false;
  EXPECT_FALSE(resolve_with_defaults(ctx, p, u, 8, off).plan.sp);
  // A default that does not fit gives way to the lightest recompute that does: micro-batches of
  // 2 × 8,192 tokens (ZeRO-3 over 8 GPUs) keep every layer's activations only with full recompute.
  Plan tight = base_plan(8192);
  tight.tp = 1;
  tight.dp = 8;
  tight.zero = 3;
  tight.micro_batch = 2;
  tight.global_batch = 64;
  PlanUnknowns only_recompute;
  only_recompute.recompute = true;
  const Resolved t = resolve_with_defaults(ctx, tight, only_recompute, 8, with_tp);
  ASSERT_TRUE(t.estimate.feasible()) << t.estimate.reason_text();
  EXPECT_NE(t.plan.recompute, Recompute::none);
  Plan none = t.plan;
  none.recompute = Recompute::none;
  EXPECT_FALSE(evaluate(ctx, none).fits());
  if (t.plan.recompute == Recompute::full) {
    Plan selective = t.plan;
    selective.recompute = Recompute::selective;
    EXPECT_FALSE(evaluate(ctx, selective).fits());  // the lightest that fits, not the fastest
  }
}

// --- MoE expert parallelism: AllToAll overlap, DualPipe, load imbalance (training.md §3-4) ---

TEST(MoeOverlap, PairedFractionPerSchedule) {
  Plan p = base_plan();
  p.pp = 4;
  p.dp = 1;
  p.global_batch = 8;  // 8 micro-batches
  EXPECT_EQ(moe_paired_fraction(p), 0);  // none: every AllToAll waits
  p.moe_overlap = MoeOverlap::dualpipe;
  EXPECT_EQ(moe_paired_fraction(p), 1);  // every chunk is a forward-backward pair
  p.moe_overlap = MoeOverlap::one_f_one_b;
  // 1F1B: pp - 1 = 3 warm-up forwards (and cool-down backwards) of 8 run alone: 5/8 paired.
  EXPECT_DOUBLE_EQ(moe_paired_fraction(p), 5.0 / 8);
  // Interleaved, vp 2: Megatron's warm-up 2·(4 - 1) + (2 - 1)·4 = 10 chunks of 16: 6/16.
  p.vp = 2;
  EXPECT_DOUBLE_EQ(moe_paired_fraction(p), 6.0 / 16);
  // No pipeline: the first forward has no backward beside it: 3/4 of 4 micro-batches.
  p.vp = 1;
  p.pp = 1;
  p.global_batch = 4;
  EXPECT_DOUBLE_EQ(moe_paired_fraction(p), 3.0 / 4);
  // More warm-up than micro-batches: nothing pairs.
  p.pp = 8;
  EXPECT_EQ(moe_paired_fraction(p), 0);
}

TEST(MoeOverlap, CombinedOneFOneBLayerPairByHand) {
  // Megatron-Core's run(f_layer, b_layer): comm stream combine_bwd, dispatch_fwd, dispatch_bwd,
  // combine_fwd; compute stream attn_fwd, mlp_dgrad, mlp_wgrad, mlp_fwd, attn_bwd.
  EpOverlapLayer x;
  x.attn_fwd_s = 1;
  x.mlp_fwd_s = 2;
  x.attn_bwd_s = 2;
  x.mlp_dgrad_s = 1;
  x.mlp_wgrad_s = 1;
  x.dispatch_fwd_s = x.combine_fwd_s = x.dispatch_bwd_s = x.combine_bwd_s = 0.5;
  // Each AllToAll under a node of the other micro-batch: the pair takes its compute,
  // 1 + 2 + 2 + 1 + 1 = 7 (run 0 ends at 7, run 1 at 14: combine_bwd 7-7.5 under attn_fwd 7-8, ...).
  EXPECT_DOUBLE_EQ(ep_overlap_pair_s(x), 7);
  // Communication-bound (each AllToAll 2, each compute node 1, no delayed wgrad): the four
  // AllToAlls back to back, 8 (run 0: combine_bwd 0-2, dispatch_fwd 2-4, dispatch_bwd 4-6,
  // combine_fwd 6-8; run 1 starts its combine_bwd at 8 and ends at 16).
  x = EpOverlapLayer{};
  x.attn_fwd_s = x.mlp_fwd_s = x.attn_bwd_s = x.mlp_dgrad_s = 1;
  x.dispatch_fwd_s = x.combine_fwd_s = x.dispatch_bwd_s = x.combine_bwd_s = 2;
  EXPECT_DOUBLE_EQ(ep_overlap_pair_s(x), 8);
  // A dispatch of 2 behind the experts' backward only: with the weight gradients delayed
  // (dgrad 1 + wgrad 1 under it) it hides, the pair takes its compute 5; without
  // (wgrad 0) the experts' forward waits 1 for it: 4 + 1 = 5 against compute 4.
  x = EpOverlapLayer{};
  x.attn_fwd_s = x.mlp_fwd_s = x.attn_bwd_s = x.mlp_dgrad_s = x.mlp_wgrad_s = 1;
  x.dispatch_fwd_s = 2;
  EXPECT_DOUBLE_EQ(ep_overlap_pair_s(x), 5);
  x.mlp_wgrad_s = 0;
  EXPECT_DOUBLE_EQ(ep_overlap_pair_s(x), 5);
  EXPECT_DOUBLE_EQ(ep_overlap_pair_s(x) - x.compute_s(), 1);
}

TEST(MoeOverlap, ExposedAllToAllByHand) {
  // Communication longer than the compute: what is left over shows (10 - 4 = 6 > 0.15·10).
  EXPECT_DOUBLE_EQ(ep_exposed_s(10, 4, 1, 0.15), 6);
  // Hidden under the compute, but its kernels hold 15% of the SMs: 0.15·2 = 0.3.
  EXPECT_DOUBLE_EQ(ep_exposed_s(2, 10, 1, 0.15), 0.3);
  // Half the chunks paired: 0.5·0.3 + 0.5·2 = 1.15.
  EXPECT_DOUBLE_EQ(ep_exposed_s(2, 10, 0.5, 0.15), 1.15);
  EXPECT_DOUBLE_EQ(ep_exposed_s(2, 10, 0, 0.15), 2);  // unpaired: all of it
  EXPECT_EQ(ep_exposed_s(0, 10, 1, 0.15), 0);
}

TEST(MoeOverlap, DualPipeBubbleByHand) {
  // DeepSeek-V3 Table 2: (PP/2 - 1)(F&B + B - 3W). pp 16, chunk 10 s, backward 6 s without
  // recompute: W = 3, B = 3: 7 × (10 + 3 - 9) = 28 s (1F1B: 15 × 10 = 150 s).
  EXPECT_DOUBLE_EQ(dualpipe_bubble_s(16, 10, 6, 0), 28);
  // Recompute belongs to B: backward 8 of which 2 recompute: W = 3, B = 5: 7 × (10 + 5 - 9).
  EXPECT_DOUBLE_EQ(dualpipe_bubble_s(16, 10, 8, 2), 42);
  EXPECT_EQ(dualpipe_bubble_s(2, 10, 6, 0), 0);  // pp 2: no bubble
}

TEST(PipelineBubble, UnevenStagesByHand) {
  // Four stages of τ = 3, 5, 4, 2 s per micro-batch (forward + backward), added in rank order:
  // the running slack Σ (τ_max − τ_i) is 0, then 2 (rank 0 is 2 s short of the new maximum 5),
  // 3, 6. The bubble is Σ τ_i − τ_max = 14 − 5 = 9 s, not (p − 1)·τ_max = 15 s: with m = 8 the
  // step is 8·5 + 9 = 49 s = one micro-batch through every stage (14) + 7 more at the slowest
  // stage (35).
  train_eval::PipelineLoad load;
  for (double tau_s : {3.0, 5.0, 4.0, 2.0}) load.add_rank_tau(tau_s);
  EXPECT_DOUBLE_EQ(load.tau_max_s, 5);
  EXPECT_DOUBLE_EQ(load.tau_slack_s, 6);
  EXPECT_DOUBLE_EQ(train_eval::pipeline_bubble_s(4, 1, load.tau_max_s, load.tau_slack_s), 9);
  // Interleaved over v = 2 chunks per rank the fill and drain pass one chunk (τ_i / 2) per rank.
  EXPECT_DOUBLE_EQ(train_eval::pipeline_bubble_s(4, 2, load.tau_max_s, load.tau_slack_s), 4.5);
  // Three even stages of 0.7 s, v = 4: no slack, today's (p − 1) / v · τ to the bit.
  train_eval::PipelineLoad even;
  for (int i = 0; i < 3; ++i) even.add_rank_tau(0.7);
  EXPECT_EQ(even.tau_slack_s, 0);
  EXPECT_EQ(train_eval::pipeline_bubble_s(3, 4, even.tau_max_s, even.tau_slack_s), (3 - 1.0) / 4 * 0.7);
  // One stage: no bubble.
  EXPECT_EQ(train_eval::pipeline_bubble_s(1, 1, 2.0, 0), 0);
}

struct MoeFixture {
  const Catalog& catalog = default_catalog();
  const ModelSpec model = testing::deepseek_v3();
  const Gpu& gpu = catalog.gpu("h100-sxm");
  const System& system = catalog.system("dgx-h100");
  TrainContext ctx = make_train_context(catalog, model, gpu, &system, nullptr);
  // 61 layers on pp 4 and EP 8 inside a DGX: small enough to evaluate, MoE layers on every rank.
  Plan plan() const {
    Plan p = base_plan();
    p.pp = 4;
    p.dp = 8;
    p.ep = 8;
    p.global_batch = 8 * 16;
    p.precision = Precision::fp8;
    return p;
  }
};

TEST(MoeOverlap, OverlapNeverSlowerAndHidesTheAllToAll) {
  MoeFixture f;
  // Megatron-Core's 1F1B AllToAll overlap runs under the interleaved schedule only (vp 2 here);
  // DualPipe has no interleaving of its own and is compared with plain 1F1B (vp 1).
  Plan p = f.plan();
  p.vp = 2;
  const Estimate none = evaluate(f.ctx, p);
  ASSERT_TRUE(none.valid()) << none.reason_text();
  ASSERT_GT(none.breakdown.ep.total_s, 0);
  EXPECT_DOUBLE_EQ(none.breakdown.ep.exposed_s, none.breakdown.ep.total_s);
  p.moe_overlap = MoeOverlap::one_f_one_b;
  const Estimate f1b = evaluate(f.ctx, p);
  Plan q = f.plan();
  const Estimate plain = evaluate(f.ctx, q);
  q.moe_overlap = MoeOverlap::dualpipe;
  const Estimate dual = evaluate(f.ctx, q);
  ASSERT_TRUE(f1b.valid() && dual.valid() && plain.valid()) << f1b.reason_text() << dual.reason_text();
  // Same AllToAll on the wire; less of it exposed, and the step no longer.
  EXPECT_DOUBLE_EQ(f1b.breakdown.ep.total_s, none.breakdown.ep.total_s);
  EXPECT_LT(f1b.breakdown.ep.exposed_s, none.breakdown.ep.exposed_s);
  EXPECT_LE(dual.breakdown.ep.exposed_s, f1b.breakdown.ep.exposed_s);
  EXPECT_LT(f1b.step_time_s, none.step_time_s);
  // DualPipe: a shorter bubble than 1F1B's (pp - 1)·τ, but two copies of the parameters.
  EXPECT_LT(dual.breakdown.bubble_s, plain.breakdown.bubble_s);
  EXPECT_GT(dual.memory.total_bytes, plain.memory.total_bytes);
  EXPECT_LT(dual.bubble_fraction, plain.bubble_fraction);
  // The model FLOPs do not depend on the schedule.
  EXPECT_DOUBLE_EQ(dual.model_flops_per_step, none.model_flops_per_step);
}

TEST(MoeOverlap, OneFOneBNeedsTheInterleavedScheduleUnderAPipeline) {
  // Megatron-Core's TransformerConfig (core_v0.16.1) asserts a virtual pipeline size for
  // --overlap-moe-expert-parallel-comm when pp > 1, and refuses it with full recompute.
  MoeFixture f;
  Plan p = f.plan();  // pp 4, vp 1
  p.moe_overlap = MoeOverlap::one_f_one_b;
  EXPECT_NE(std::strstr(evaluate(f.ctx, p).reason_text(), "interleaved"), nullptr);
  p.vp = 2;
  EXPECT_TRUE(evaluate(f.ctx, p).valid());
  p.recompute = Recompute::full;
  EXPECT_NE(std::strstr(evaluate(f.ctx, p).reason_text(), "full recompute"), nullptr);
  // Without a pipeline the overlap pairs micro-batches of the one stage.
  p = f.plan();
  p.pp = 1;
  p.dp = 32;
  p.global_batch = 32 * 4;
  p.moe_overlap = MoeOverlap::one_f_one_b;
  const Estimate flat = evaluate(f.ctx, p);
  EXPECT_EQ(std::strstr(flat.reason_text(), "interleaved"), nullptr) << flat.reason_text();
}

TEST(MoeOverlap, DualPipeNeedsAnEvenPipelineWithoutInterleaving) {
  MoeFixture f;
  Plan p = f.plan();
  p.moe_overlap = MoeOverlap::dualpipe;
  p.pp = 1;
  EXPECT_NE(std::strstr(evaluate(f.ctx, p).reason_text(), "DualPipe"), nullptr);
  p.pp = 4;
  p.vp = 2;
  EXPECT_NE(std::strstr(evaluate(f.ctx, p).reason_text(), "DualPipe"), nullptr);
}

TEST(MoeOverlap, DualPipeDispatchCrossesTheNetworkOncePerNode) {
  // DeepSeek-V3 (zoo: n_group 8, topk_group 4) on EP 64 over 8 HGX H800 nodes. 1F1B's AllToAll
  // sends 8 copies a token over the group; DualPipe's DeepEP-style dispatch sends one per
  // destination node over IB (3.62901 with node-limited routing, 5.29465 without;
  // plan/moe_dispatch.h) and forwards inside the node over NVLink, the slower of the two
  // setting the pace. bf16, so that every AllToAll moves 2-byte tokens under both schedules.
  // IB-bound: the time scales with the network copies, 3.62901 / 8 = 0.4536 of 1F1B's
  // (latency and the one-GPU-per-node group's slightly different rate: within 0.02).
  const Catalog& catalog = default_catalog();
  const ModelSpec limited = catalog.model("deepseek-v3");
  ASSERT_EQ(limited.moe.group_limit, 4);
  ModelSpec open = limited;
  open.moe.group_limit = 0;
  const Gpu& gpu = catalog.gpu("h800-sxm");
  const System& system = catalog.system("hgx-h800");
  const TrainContext ctx = make_train_context(catalog, limited, gpu, &system, nullptr);
  const TrainContext open_ctx = make_train_context(catalog, open, gpu, &system, nullptr);
  Plan p = base_plan();
  p.pp = 2;
  p.dp = 64;
  p.ep = 64;
  p.global_batch = 64 * 8;
  // Without overlap the AllToAll on the wire is 1F1B's (which needs vp > 1 under a pipeline).
  p.moe_overlap = MoeOverlap::none;
  const Estimate f1b = evaluate(ctx, p);
  p.moe_overlap = MoeOverlap::dualpipe;
  const Estimate dual = evaluate(ctx, p);
  const Estimate dual_open = evaluate(open_ctx, p);
  ASSERT_GT(f1b.breakdown.ep.total_s, 0) << f1b.reason_text();
  ASSERT_GT(dual.breakdown.ep.total_s, 0) << dual.reason_text();
  EXPECT_NEAR(dual.breakdown.ep.total_s / f1b.breakdown.ep.total_s, 3.62901 / 8, 0.02);
  EXPECT_NEAR(dual.breakdown.ep.total_s / dual_open.breakdown.ep.total_s, 3.62901 / 5.29465, 0.02);
  // The routing limit moves tokens, not FLOPs.
  EXPECT_DOUBLE_EQ(dual.hardware_flops_per_step, dual_open.hardware_flops_per_step);
  // Inside one node there is no network to deduplicate: DualPipe's AllToAll is 1F1B's.
  p.dp = 8;
  p.ep = 8;
  p.global_batch = 8 * 8;
  const Estimate dual_node = evaluate(ctx, p);
  p.moe_overlap = MoeOverlap::none;
  const Estimate f1b_node = evaluate(ctx, p);
  EXPECT_DOUBLE_EQ(dual_node.breakdown.ep.total_s, f1b_node.breakdown.ep.total_s);
}

TEST(MoeImbalance, TheMostLoadedRankSetsThePace) {
  MoeFixture f;
  Plan p = f.plan();
  // 2,048 tokens a micro-batch: the hottest rank's combine stays under the 512 MiB at which NCCL
  // spreads an 8-GPU AllToAll's peers over more channels (cost/collective_p2p_channels.h), so
  // both runs are on the same point-to-point rate.
  p.seq_len = 2048;
  const Estimate balanced = evaluate(f.ctx, p);
  p.moe_imbalance = 1.3;
  const Estimate skewed = evaluate(f.ctx, p);
  ASSERT_TRUE(skewed.valid()) << skewed.reason_text();
  EXPECT_GT(skewed.step_time_s, balanced.step_time_s);
  // The hottest rank receives 1.3× the tokens: 1.3× the AllToAll bytes. Bandwidth-bound at
  // these sizes, so close to 1.3× the time (latency terms make it a little less).
  EXPECT_NEAR(skewed.breakdown.ep.total_s / balanced.breakdown.ep.total_s, 1.3, 0.03);
  // The work done is the same: imbalance moves tokens, it does not add FLOPs.
  EXPECT_NEAR(skewed.hardware_flops_per_step / balanced.hardware_flops_per_step, 1.0, 1e-12);
  p.moe_imbalance = 0.9;
  EXPECT_FALSE(evaluate(f.ctx, p).valid());
}

TEST(MoeDispatcher, FlexSendsOneCopyPerDestinationRank) {
  // DeepSeek-V3 on EP 8: 256 experts, 32 a rank, top-8. Per-rank copies: 8 · (1 − C(224,8)/C(256,8))
  // = 5.2947 of the 8 per-expert ones (plan/moe_dispatch.h), so about 0.662 of the AllToAll bytes;
  // bandwidth-bound at these sizes, so about 0.662 of its time. The experts compute the same.
  MoeFixture f;
  Plan p = f.plan();
  const Estimate alltoall = evaluate(f.ctx, p);
  p.moe_dispatcher = MoeDispatcher::flex;
  const Estimate flex = evaluate(f.ctx, p);
  ASSERT_TRUE(flex.valid()) << flex.reason_text();
  double missed = 1;
  for (int i = 0; i < 8; ++i) missed *= (224.0 - i) / (256.0 - i);
  EXPECT_NEAR(flex.breakdown.ep.total_s / alltoall.breakdown.ep.total_s, 8 * (1 - missed) / 8, 0.02);
  // No sender-side permute (ops_test FlexDispatchHasNoSenderSidePermute): less memory time,
  // the same FLOPs.
  EXPECT_LT(flex.breakdown.forward_s, alltoall.breakdown.forward_s);
  EXPECT_DOUBLE_EQ(flex.hardware_flops_per_step, alltoall.hardware_flops_per_step);
  EXPECT_LT(flex.step_time_s, alltoall.step_time_s);
}

TEST(MoeDispatcher, OnlyNcclsAllToAllIsSpreadOverMoreChannels) {
  // DeepSeek-V3 on EP 8, a 4,096- and an 8,192-token micro-batch: the AllToAll dispatcher's
  // exchange (torch all_to_all_single: NCCL's grouped send/receive) moves 4096 x 7168 x 8 x 2 =
  // 448 MiB, then 896 MiB, past the 512 MiB at which NCCL spreads an 8-GPU AllToAll's peers from
  // 4 to 8 channels (cost/collective_p2p_channels.h): its rate goes from f to 1 - (1 - f) x 4/8 of
  // the links', so twice the bytes take 2 f / (1 - (1 - f) / 2) the time. The flex dispatcher's
  // 0.662 x as many bytes (297, then 593 MiB) run DeepEP's or HybridEP's kernels, which NCCL's
  // scheduler does not reach: twice the bytes, twice the time (bandwidth-bound; the fixed costs
  // make it a little less: 1.97).
  MoeFixture f;
  Plan p = f.plan();
  const auto ep_s = [&](int seq, MoeDispatcher d) {
    Plan q = p;
    q.seq_len = seq;
    q.moe_dispatcher = d;
    const Estimate e = evaluate(f.ctx, q);
    EXPECT_GT(e.breakdown.ep.total_s, 0) << e.reason_text();
    return e.breakdown.ep.total_s;
  };
  const double fr = f.ctx.topology.alltoall_bw_fraction;
  const double nccl = ep_s(8192, MoeDispatcher::alltoall) / ep_s(4096, MoeDispatcher::alltoall);
  const double flex = ep_s(8192, MoeDispatcher::flex) / ep_s(4096, MoeDispatcher::flex);
  EXPECT_NEAR(flex, 2.0, 0.04);
  // The fixed costs are alike in both: the ratio of the two ratios is the spread's gain.
  EXPECT_NEAR(nccl / flex, fr / (1 - (1 - fr) / 2), 0.01);
}

}  // namespace
}  // namespace gpuplan
