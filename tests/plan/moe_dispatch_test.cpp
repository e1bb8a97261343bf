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

TEST(MoeDispatcherNames, RoundTrip) {
  EXPECT_EQ(parse_moe_dispatcher("flex"), MoeDispatcher::flex);
  EXPECT_EQ(parse_moe_dispatcher("alltoall"), MoeDispatcher::alltoall);
  EXPECT_FALSE(parse_moe_dispatcher("deepep").has_value());
  EXPECT_EQ(moe_dispatcher_name(MoeDispatcher::flex), "flex");
}

}  // namespace
}  // namespace gpuplan
