// Issue 32, fifteenth session: Simple's pipeline fill across domains.
// - A chunk set crosses between domains through all the domain's NICs at once (NCCL spreads the
//   channels over them): g x one GPU's network rate (÷ crowd), for the ring and the tree.
// - Tree/Simple's fixed chunk: NCCL runs Tree on Simple in one chunk per channel of
//   NCCL_BUFFSIZE / NCCL_STEPS whatever the message (src/enqueue.cc at v2.29.2-1: only
//   Tree/LL128, NVLS, NVLS_TREE and CollNet shrink it), so each hop of the tree's depth costs one
//   chunk set, min(step, bytes), not capped at the transfer.
// Checked by hand arithmetic on the free functions and on forced lines.
#include "cost/collective_simple_fill.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;

// By hand: 14 NVLink hops of a 4.66 MB step at 300 GB/s per GPU = 217.47 us, and 8 network hops
// through 8 GPUs' NICs at 40 GB/s each (320 GB/s for the domain) = 116.5 us.
TEST(CollectiveSimpleFill, BandwidthBoundByHand) {
  const double fill = tree_simple_fill_s(4.66e6, 32.0 * 1024 * 1024, 14, 8, 300e9, 40e9, 8, 1.0);
  EXPECT_NEAR(fill, 14 * 4.66e6 / 300e9 + 8 * 4.66e6 / 320e9, 1e-12);
  EXPECT_NEAR(fill * 1e6, 217.4667 + 116.5, 1e-3);
  // Two NICs' worth of channels on one NIC (crowd 2) doubles the network hops only.
  const double crowded = tree_simple_fill_s(4.66e6, 32.0 * 1024 * 1024, 14, 8, 300e9, 40e9, 8, 2.0);
  EXPECT_NEAR(crowded - fill, 116.5e-6, 1e-12);
}

TEST(CollectiveSimpleFill, ChunkSetCrossesThroughAllTheDomainsNics) {
  EXPECT_DOUBLE_EQ(chunk_set_net_rate(40e9, 8, 1.0), 320e9);
  EXPECT_DOUBLE_EQ(chunk_set_net_rate(47.5e9, 72, 2.25), 47.5e9 * 32);  // 32 of an NVL72's 72 NICs carry it
  EXPECT_DOUBLE_EQ(chunk_set_net_rate(40e9, 1, 1.0), 40e9);             // one GPU per node: its own NIC
}

// A buffer smaller than a step is one chunk per channel: 1 MiB crosses each hop whole.
TEST(CollectiveSimpleFill, SmallBufferIsOneChunk) {
  const double mib = 1024.0 * 1024;
  const double fill = tree_simple_fill_s(4.66e6, mib, 14, 2, 300e9, 40e9, 8, 1.0);
  EXPECT_NEAR(fill, 14 * mib / 300e9 + 2 * mib / 320e9, 1e-12);
  EXPECT_EQ(tree_simple_fill_s(4.66e6, mib, 0, 0, 300e9, 40e9, 8, 1.0), 0.0);
}

// On a forced Tree/Simple line across 10 nodes of 8 H100: the fixed part is NCCL's tree
// latency (base + 2(g-1) NVLink hops + 2 ceil(log2 10) = 8 NET hops) plus the fill above at the
// line's own rates, and at 32 MiB the fill exceeds the transfer (it is not capped by it).
TEST(CollectiveSimpleFill, ForcedTreeSimpleLineByHand) {
  const Catalog& c = default_catalog();
  const CollectiveTopology t = make_collective_topology(c, c.system("dgx-h100"), nullptr, default_collective_params(c));
  const double bytes = 32.0 * 1024 * 1024;
  const auto e = estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 8, 10), t, CollectiveAlgorithm::tree,
                                          Protocol::simple);
  ASSERT_TRUE(e.feasible) << e.reason;
  const int s = static_cast<int>(Protocol::simple);
  const double library = t.tree_base_s[s] + 14 * t.levels[0].tree_hop_s[s] + 8 * t.levels[1].tree_hop_s[s];
  const double step = std::min(t.simple_step_bytes, bytes);
  const double fill = 14 * step / e.level_bw_bytes_per_s[0] + 8 * step / (8 * e.level_bw_bytes_per_s[1]);
  EXPECT_NEAR(e.latency_s, t.net_base_s + library + fill, 1e-12);
  EXPECT_GT(fill, e.transfer_s);
  // 1 GiB: the same fill (a full step per hop), now below the transfer.
  const auto big = estimate_collective_with(request(CollectiveOp::all_reduce, 1024.0 * 1024 * 1024, 8, 10), t,
                                            CollectiveAlgorithm::tree, Protocol::simple);
  ASSERT_TRUE(big.feasible) << big.reason;
  EXPECT_NEAR(big.latency_s, t.net_base_s + library + fill, 1e-12);
  EXPECT_LT(fill, big.transfer_s);
}

// Ring/Simple AllGather across 10 nodes of 8 H100 at 1 GiB (bandwidth-bound, the fill below the
// transfer): NCCL's ring latency (base + 70 NVLink hops + 9 NET hops x the multi-node Simple
// factor) + 70 steps of one chunk set at the NVLink rate + 9 at the domain's 8 NICs' rate.
TEST(CollectiveSimpleFill, ForcedRingSimpleLineByHand) {
  const Catalog& c = default_catalog();
  const CollectiveTopology t = make_collective_topology(c, c.system("dgx-h100"), nullptr, default_collective_params(c));
  const double bytes = 1024.0 * 1024 * 1024;
  const auto e = estimate_collective_with(request(CollectiveOp::all_gather, bytes, 8, 10), t, CollectiveAlgorithm::ring,
                                          Protocol::simple);
  ASSERT_TRUE(e.feasible) << e.reason;
  const int s = static_cast<int>(Protocol::simple);
  const double library =
      t.ring_base_s[s] + 70 * t.levels[0].ring_hop_s[s] + 9 * t.levels[1].ring_hop_s[s] * t.net_ring_simple_factor;
  const double fill =
      70 * t.simple_step_bytes / e.level_bw_bytes_per_s[0] + 9 * t.simple_step_bytes / (8 * e.level_bw_bytes_per_s[1]);
  ASSERT_LT(fill, e.transfer_s);
  EXPECT_NEAR(e.latency_s, t.net_base_s + library + fill, 1e-12);
}

}  // namespace
}  // namespace gpuplan
