// The copies a MoE dispatch sends per token (plan/moe_dispatch.h, docs/model/training.md §3
// "Dispatchers"), by hand.
#include "plan/moe_dispatch.h"

#include <gtest/gtest.h>

namespace gpuplan {
namespace {

TEST(MoeDispatchCopies, DistinctRanksByHand) {
  // 4 experts on 2 ranks (2 each), top-2: the pair misses rank 0 only when it is rank 1's two
  // experts, C(2,2)/C(4,2) = 1/6; expected ranks hit 2 · (1 − 1/6) = 5/3.
  EXPECT_NEAR(moe_distinct_ranks_per_token(4, 2, 2), 5.0 / 3.0, 1e-15);
  // GPT-OSS 120B on EP 64: 128 experts, 2 a rank, top-4. P(a rank is missed) =
  // (126·125·124·123)/(128·127·126·125) = (124·123)/(128·127) = 15,252/16,256;
  // 64 · 1,004/16,256 = 3.9528 ranks, 1.2% fewer copies than the 4 per-expert ones.
  EXPECT_NEAR(moe_distinct_ranks_per_token(128, 4, 64), 64.0 * 1004.0 / 16256.0, 1e-12);
  // One expert a rank: every chosen expert is its own rank, top-k copies either way.
  EXPECT_NEAR(moe_distinct_ranks_per_token(8, 2, 8), 2.0, 1e-15);
  // No expert parallelism: one rank holds them all.
  EXPECT_DOUBLE_EQ(moe_distinct_ranks_per_token(128, 8, 1), 1.0);
}

TEST(MoeDispatchCopies, QwenThirtyBOnEightRanksByHand) {
  // Qwen3 30B-A3B on EP 8: 128 experts, 16 a rank, top-8. P(missed) = Π_{i<8} (112 − i)/(128 − i).
  double missed = 1;
  for (int i = 0; i < 8; ++i) missed *= (112.0 - i) / (128.0 - i);
  const double ranks = 8 * (1 - missed);
  EXPECT_NEAR(moe_distinct_ranks_per_token(128, 8, 8), ranks, 1e-12);
  EXPECT_NEAR(ranks, 5.3394, 1e-4);  // a third fewer copies than the 8 per-expert ones
}

TEST(MoeDispatchCopies, AllToAllSendsOneCopyPerExpert) {
  EXPECT_DOUBLE_EQ(moe_dispatch_copies_per_token(128, 8, 8, MoeDispatcher::alltoall), 8.0);
  EXPECT_DOUBLE_EQ(moe_dispatch_copies_per_token(128, 8, 8, MoeDispatcher::flex),
                   moe_distinct_ranks_per_token(128, 8, 8));
  // Never more copies than experts chosen, never fewer than one.
  for (int ep : {1, 2, 4, 8, 16, 32, 64, 128}) {
    const double c = moe_dispatch_copies_per_token(128, 4, ep, MoeDispatcher::flex);
    EXPECT_LE(c, 4.0 + 1e-12) << ep;
    EXPECT_GE(c, 1.0) << ep;
  }
}

TEST(MoeNodeDispatch, DeepSeekV3NodeLimitedByHand) {
  // DeepSeek-V3 on EP 64 over 8 nodes of 8 GPUs: 256 experts in 8 groups (one per node), a
  // token's 8 experts from its best 4 groups. Reachable: 4 nodes, 128 experts (32 a node).
  // P(a reachable node is missed) = Π_{i<8} (96 − i)/(128 − i) = 0.0927473;
  // nodes per token 4 · (1 − 0.0927473) = 3.62901 (the paper's "at most 4 nodes").
  double missed = 1;
  for (int i = 0; i < 8; ++i) missed *= (96.0 - i) / (128.0 - i);
  const MoeNodeDispatch v3 = moe_node_dispatch(256, 8, 8, 8, 8, 4);
  EXPECT_NEAR(v3.nodes_per_token, 4 * (1 - missed), 1e-12);
  EXPECT_NEAR(v3.nodes_per_token, 3.62901, 1e-5);
  // Forwarded inside the nodes: distinct GPUs among the 32 of those nodes, 4 experts each:
  // P(missed) = Π_{i<8} (124 − i)/(128 − i); 32 · (1 − P) = 7.35937.
  double gpu_missed = 1;
  for (int i = 0; i < 8; ++i) gpu_missed *= (124.0 - i) / (128.0 - i);
  EXPECT_NEAR(v3.ranks_per_token, 32 * (1 - gpu_missed), 1e-12);
  EXPECT_NEAR(v3.ranks_per_token, 7.35937, 1e-5);
  // Without the limit (topk_group = n_group) the 8 experts spread over 5.29465 of the 8 nodes:
  // 8 · (1 − Π_{i<8} (224 − i)/(256 − i)). The limit cuts the network copies by 31%.
  double all_missed = 1;
  for (int i = 0; i < 8; ++i) all_missed *= (224.0 - i) / (256.0 - i);
  const MoeNodeDispatch open = moe_node_dispatch(256, 8, 8, 8, 8, 8);
  EXPECT_NEAR(open.nodes_per_token, 8 * (1 - all_missed), 1e-12);
  EXPECT_NEAR(open.nodes_per_token, 5.29465, 1e-5);
  // Groups that are not the nodes (EP over 4 nodes, 2 groups a node): the limit is not a node
  // limit; the experts are drawn from all 4 nodes.
  EXPECT_DOUBLE_EQ(moe_node_dispatch(256, 8, 4, 8, 8, 4).nodes_per_token, moe_distinct_ranks_per_token(256, 8, 4));
  // One node: one copy over no network.
  EXPECT_DOUBLE_EQ(moe_node_dispatch(256, 8, 1, 8, 8, 4).nodes_per_token, 1.0);
}

TEST(MoeNodeDispatch, NeverMoreThanTheLimitOrTheExperts) {
  for (int limit : {0, 1, 2, 3, 4, 8}) {
    const MoeNodeDispatch n = moe_node_dispatch(256, 8, 8, 8, 8, limit);
    EXPECT_LE(n.nodes_per_token, (limit > 0 ? limit : 8) + 1e-12) << limit;
    EXPECT_LE(n.nodes_per_token, n.ranks_per_token + 1e-12) << limit;
    EXPECT_LE(n.ranks_per_token, 8.0 + 1e-12) << limit;
    EXPECT_GE(n.nodes_per_token, 1.0) << limit;
  }
}

TEST(MoeDispatcherNames, RoundTrip) {
  EXPECT_EQ(parse_moe_dispatcher("flex"), MoeDispatcher::flex);
  EXPECT_EQ(parse_moe_dispatcher("alltoall"), MoeDispatcher::alltoall);
  EXPECT_FALSE(parse_moe_dispatcher("deepep").has_value());
  EXPECT_EQ(moe_dispatcher_name(MoeDispatcher::flex), "flex");
}

}  // namespace
}  // namespace gpuplan
