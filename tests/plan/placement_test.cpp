// Where parallel groups land on scale-up domains (plan/placement.h), checked by hand against
// Megatron's rank order: tp fastest, then cp, dp, pp.
#include <gtest/gtest.h>

#include "plan/placement.h"

namespace gpuplan {
namespace {

TEST(Placement, GroupInsideOneDomain) {
  // 4 ranks 1 apart on 8-GPU nodes: ranks 0..3, one node.
  const GroupPlacement g = place_group(4, 1, 8);
  EXPECT_EQ(g.size, 4);
  EXPECT_EQ(g.gpus_per_domain, 4);
  EXPECT_EQ(g.domains, 1);
  EXPECT_FALSE(g.crosses_domains());
}

TEST(Placement, StrideAtLeastTheDomainPutsEveryMemberInItsOwnDomain) {
  // DP 4 under TP 8 on 8-GPU nodes: ranks 0, 8, 16, 24 — four nodes, adjacent ones.
  GroupPlacement g = place_group(4, 8, 8);
  EXPECT_EQ(g.gpus_per_domain, 1);
  EXPECT_EQ(g.domains, 4);
  EXPECT_EQ(g.domain_stride, 1);
  // PP 2 under tp × dp = 32: ranks 0 and 32, four nodes apart.
  g = place_group(2, 32, 8);
  EXPECT_EQ(g.domains, 2);
  EXPECT_EQ(g.domain_stride, 4);
}

TEST(Placement, StridedGroupSplitsOverDomains) {
  // DP 8 under TP 2 on 8-GPU nodes: ranks 0, 2, ..., 14 — 8 / 2 = 4 per node, 2 nodes.
  const GroupPlacement g = place_group(8, 2, 8);
  EXPECT_EQ(g.gpus_per_domain, 4);
  EXPECT_EQ(g.domains, 2);
  EXPECT_TRUE(g.crosses_domains());
}

TEST(Placement, GroupOfOneAndDegenerateInputs) {
  const GroupPlacement g = place_group(1, 16, 8);
  EXPECT_EQ(g.size, 1);
  EXPECT_EQ(g.domains, 1);
  EXPECT_EQ(g.gpus_per_domain, 1);
  // A size or domain of 0 counts as 1 (no division by zero).
  EXPECT_EQ(place_group(0, 1, 8).size, 1);
  EXPECT_EQ(place_group(4, 1, 0).domains, 4);
}

TEST(Placement, PlanGroups) {
  // tp 4 · cp 2 · dp 4 · pp 2 = 64 GPUs on 8-GPU nodes.
  Plan p;
  p.tp = 4;
  p.cp = 2;
  p.dp = 4;
  p.pp = 2;
  p.zero = 1;
  p.dp_shard = 2;
  const Placement pl = place_plan(p, 8);
  EXPECT_EQ(pl.tp.domains, 1);          // ranks 0..3
  EXPECT_EQ(pl.cp.gpus_per_domain, 2);  // ranks 0, 4: one node
  EXPECT_EQ(pl.cp.domains, 1);
  EXPECT_EQ(pl.dp.domains, 4);          // stride tp·cp = 8: one per node
  EXPECT_EQ(pl.pp.domain_stride, 4);    // stride 32 = 4 nodes
  // Gradients over dp × cp = 8 ranks, 4 apart: 2 per node, 4 nodes.
  EXPECT_EQ(pl.grad.size, 8);
  EXPECT_EQ(pl.grad.gpus_per_domain, 2);
  EXPECT_EQ(pl.grad.domains, 4);
  // Shards of dp_shard × cp = 4 ranks, 4 apart; replicas dp / shard = 2, tc·shard = 16 apart.
  EXPECT_EQ(pl.shard.size, 4);
  EXPECT_EQ(pl.replica.size, 2);
  EXPECT_EQ(pl.replica.stride, 16);
  EXPECT_EQ(pl.replica.domain_stride, 2);
}

TEST(Placement, CollectiveRequestCarriesTheGroup) {
  const GroupPlacement g = place_group(8, 2, 8);
  const CollectiveRequest r = collective_request(CollectiveOp::all_gather, 1e6, g);
  EXPECT_EQ(r.op, CollectiveOp::all_gather);
  EXPECT_DOUBLE_EQ(r.bytes, 1e6);
  EXPECT_EQ(r.gpus_per_domain, 4);
  EXPECT_EQ(r.domains, 2);
}

}  // namespace
}  // namespace gpuplan
