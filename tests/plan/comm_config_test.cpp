// A run's own communication configuration (plan/comm_config.h, docs/model/training.md
// "Data-parallel buckets and capped communicators"): Megatron-Core's data-parallel collectives
// one bucket at a time (the count by hand, then the evaluator's data-parallel time as that many
// collectives of one bucket each), and a CP ring step on a channel-capped communicator.
#include "plan/comm_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/error.h"
#include "cost/collective.h"
#include "plan/evaluate.h"
#include "plan/placement.h"
#include "plan/plan_json.h"
#include "workload/test_models.h"

namespace gpuplan {
namespace {

using testing::DgxH100;

TEST(DpBuckets, CountByHand) {
  // Buckets of at least 128 Mi (134,217,728) parameters: 7,504,924,672 hold 55 of them
  // (55.92: the remainder rides in the 55th).
  EXPECT_DOUBLE_EQ(dp_bucket_count(7504924672.0, 134217728.0), 55);
  // 768 M buckets (NVIDIA's MLPerf Training v5.1 Llama 3.1 8B configs): 9.
  EXPECT_DOUBLE_EQ(dp_bucket_count(7504924672.0, 768e6), 9);
  // Fewer parameters than one bucket, no bucket size, no parameters: one collective.
  EXPECT_DOUBLE_EQ(dp_bucket_count(1e8, 134217728.0), 1);
  EXPECT_DOUBLE_EQ(dp_bucket_count(7504924672.0, 0), 1);
  EXPECT_DOUBLE_EQ(dp_bucket_count(0, 134217728.0), 1);
}

// Llama 3 8B at TP 1, ZeRO 1 on 8 H100s under Megatron-Core's 128 Mi buckets: the edge bucket
// is the embedding table (525,336,576 parameters; mechanisms_test.cpp), the other
// 8,030,261,248 − 525,336,576 = 7,504,924,672 go in 55 buckets, each reduce-scattered (bf16
// gradients) and all-gathered (bf16 weights) as its own collective.
TEST(DpBuckets, EachBucketIsItsOwnCollective) {
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  ASSERT_DOUBLE_EQ(ctx.framework->dp_bucket_params, 134217728.0);
  Plan p;
  p.seq_len = 4096;
  p.dp = 8;
  p.zero = 1;
  p.global_batch = 32;
  const Estimate e = evaluate(ctx, p);
  ASSERT_TRUE(e.valid());
  const double rest_params = 8030261248.0 - 525336576.0;
  const double bucket_bytes = rest_params * 2 / 55;
  const Placement pl = place_plan(p, ctx.domain_gpus);
  const double rs =
      estimate_collective_time(collective_request(CollectiveOp::reduce_scatter, bucket_bytes, pl.grad), ctx.topology)
          .time_s;
  const double ag =
      estimate_collective_time(collective_request(CollectiveOp::all_gather, bucket_bytes, pl.grad), ctx.topology)
          .time_s;
  EXPECT_NEAR(e.breakdown.dp.total_s - e.breakdown.dp_edge.total_s, 55 * (rs + ag), 1e-12);
  // One collective of all those bytes costs less: the 54 fixed costs saved.
  const double rs_one =
      estimate_collective_time(collective_request(CollectiveOp::reduce_scatter, rest_params * 2, pl.grad), ctx.topology)
          .time_s;
  EXPECT_LT(rs_one, 55 * rs);
}

TEST(CpChannels, CappedStepByHand) {
  // Llama 3.1 8B at CP 2 on B200s: a forward ring step sends 4,096 tokens x 8 K/V heads x 2 x
  // 128 x 2 bytes = 16,777,216 bytes. Uncapped over NVLink it takes, say, 30 us; on one NCCL
  // channel at 40 GB/s it takes 16,777,216 / 40e9 = 419.4 us, which sets the step.
  EXPECT_NEAR(cp_channel_step_s(30e-6, 16777216.0, 40e9), 16777216.0 / 40e9, 1e-15);
  // Two channels halve it; a faster uncapped step never gets faster from the cap.
  EXPECT_NEAR(cp_channel_step_s(30e-6, 16777216.0, 80e9), 209.7152e-6, 1e-12);
  EXPECT_DOUBLE_EQ(cp_channel_step_s(500e-6, 16777216.0, 80e9), 500e-6);
  // No cap: the uncapped step.
  EXPECT_DOUBLE_EQ(cp_channel_step_s(30e-6, 16777216.0, 0), 30e-6);
}

// The evaluator: Llama 3.1 8B at CP 2 on 16 B200s, one CP communicator channel at the Blackwell
// family's 40 GB/s. The CP communication grows to its steps at that rate and the step with it.
TEST(CpChannels, CappedCommunicatorSlowsTheRing) {
  const Catalog& catalog = default_catalog();
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(catalog, m, catalog.gpu("b200"), &catalog.system("dgx-b200"), nullptr);
  ASSERT_DOUBLE_EQ(ctx.efficiency->p2p_channel_bw_bytes_per_s, 40e9);
  Plan p;
  p.seq_len = 8192;
  p.cp = 2;
  p.dp = 8;
  p.zero = 1;
  p.global_batch = 8;
  const Estimate free = evaluate(ctx, p);
  p.cp_comm_channels = 1;
  const Estimate capped = evaluate(ctx, p);
  ASSERT_TRUE(free.valid());
  ASSERT_TRUE(capped.valid());
  // One forward step (4,096 tokens x 2,048 K/V bytes a token) and one backward (twice that) a
  // layer, 32 layers: (16,777,216 + 33,554,432) / 40e9 s each.
  EXPECT_NEAR(capped.breakdown.cp.total_s, 32 * (16777216.0 + 33554432.0) / 40e9, 1e-9);
  EXPECT_GT(capped.step_time_s, free.step_time_s);
}

// A run's bucket size and CP channel cap travel in the plan's JSON (a sweep result read back
// prices the same step), only when set; a negative count is refused.
TEST(CommConfigJson, BucketsAndChannelsRoundTripOnlyWhenSet) {
  Plan p;
  p.dp_bucket_params = 768e6;
  p.cp_comm_channels = 1;
  const nlohmann::ordered_json j = plan_json(p);
  EXPECT_EQ(j.at("dp_bucket_params").get<double>(), 768e6);
  EXPECT_EQ(j.at("cp_comm_channels").get<int>(), 1);
  const Plan back = plan_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.dp_bucket_params, 768e6);
  EXPECT_EQ(back.cp_comm_channels, 1);
  EXPECT_FALSE(plan_json(Plan{}).contains("dp_bucket_params"));
  EXPECT_FALSE(plan_json(Plan{}).contains("cp_comm_channels"));
  nlohmann::json bad = nlohmann::json::parse(j.dump());
  bad["cp_comm_channels"] = -1;
  EXPECT_THROW(plan_from_json(bad), Error);
}

}  // namespace
}  // namespace gpuplan
