// Many NVL72 racks (issue 32): NCCL's per-channel Tree ceiling beyond two domains, and the Simple
// pipeline fill of NVLS_TREE at the shared head-NIC rate. Hand arithmetic in each comment; the
// shipped constants are NCCL's (tuning.cc) and the GB200 figures of data/.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;
using RackAlgo = CollectiveAlgorithm;

CollectiveTopology multirack_nvl72() {
  const Catalog& c = default_catalog();
  return make_collective_topology(c, c.system("gb200-nvl72"), nullptr, default_collective_params(c));
}

// The same racks on NCCL >= 2.27.3, which lets LL128 cross the network over NVLink-C2C: the
// system names the plain InfiniBand transport (the catalog's names infiniband-c2c, NCCL 2.26).
CollectiveTopology multirack_nvl72_ll128_across() {
  const Catalog& c = default_catalog();
  System rack = c.system("gb200-nvl72");
  rack.scaleout_transport = "infiniband";
  return make_collective_topology(c, rack, nullptr, default_collective_params(c));
}

CollectiveTopology multirack_h100() {
  const Catalog& c = default_catalog();
  return make_collective_topology(c, c.system("dgx-h100"), nullptr, default_collective_params(c));
}

// The ceiling is 16 channels x NCCL's per-channel Tree rate for Blackwell: 70 / 42.8 / 24 GB/s
// (one rack, two, more) for Simple, 55.6 / 31.67 / 20 for LL128; LL has none.
TEST(CollectiveMultiRack, TreeCeilingIsChannelsTimesNcclPerChannelRate) {
  const auto t = multirack_nvl72();
  const int simple = static_cast<int>(Protocol::simple);
  const int ll128 = static_cast<int>(Protocol::ll128);
  EXPECT_NEAR(t.tree_cap_bytes_per_s[0][simple], 16 * 70.0e9, 1);
  EXPECT_NEAR(t.tree_cap_bytes_per_s[1][simple], 16 * 42.8e9, 1);
  EXPECT_NEAR(t.tree_cap_bytes_per_s[2][simple], 16 * 24.0e9, 1);
  EXPECT_NEAR(t.tree_cap_bytes_per_s[2][ll128], 16 * 20.0e9, 1);
  EXPECT_EQ(t.tree_cap_bytes_per_s[2][static_cast<int>(Protocol::ll)], 0);
}

// 20 racks, Tree/Simple, 16 GiB: the chain moves 2 x bytes per GPU; NVLink 5 would carry it at
// 900 x 0.758 = 682.2 GB/s, the ceiling at 16 x 24 = 384 GB/s binds: transfer = 2 x 16 GiB /
// 384 GB/s = 89.48 ms (Tree busbw ~ 384 GB/s; CoreWeave measured 405.7 at this size with
// NCCL's own choice). LL128: min(682.2 x 0.92 x 120/128 = 588.4, 16 x 20 = 320) = 320 GB/s.
TEST(CollectiveMultiRack, TreeBeyondTwoRacksRunsAtTheChannelCeiling) {
  const auto t = multirack_nvl72();
  const double bytes = 16 * 1024.0 * 1024 * 1024;
  const auto simple =
      estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 72, 20), t, RackAlgo::tree, Protocol::simple);
  ASSERT_TRUE(simple.feasible) << simple.reason;
  EXPECT_NEAR(simple.level_bw_bytes_per_s[0], 384e9, 1);
  EXPECT_NEAR(simple.transfer_s, 2 * bytes / 384e9, 1e-9);
  const auto ll128 = estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 72, 20),
                                              multirack_nvl72_ll128_across(), RackAlgo::tree, Protocol::ll128);
  ASSERT_TRUE(ll128.feasible) << ll128.reason;
  EXPECT_NEAR(ll128.level_bw_bytes_per_s[0], 320e9, 1);
  // Two racks: 16 x 42.8 = 684.8 GB/s is above the NVLink rate x NCCL's Tree 0.92, which stays
  // the bound.
  const auto two =
      estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 72, 2), t, RackAlgo::tree, Protocol::simple);
  EXPECT_NEAR(two.level_bw_bytes_per_s[0], 900e9 * 0.758 * 0.92, 1e3);
  // Concurrent collectives share the ceiling as they share the links.
  auto shared = request(CollectiveOp::all_reduce, bytes, 72, 20);
  shared.concurrent = 2;
  EXPECT_NEAR(estimate_collective_with(shared, t, RackAlgo::tree, Protocol::simple).level_bw_bytes_per_s[0], 192e9, 1);
}

// On 8-GPU H100 nodes the ceiling (16 x 36 = 576 GB/s beyond two nodes) is above NVLink 4's
// 450 x 0.822 x 0.92 (NCCL's Tree factor) = 340.3 GB/s: the Tree line is the NVLink-bound one.
TEST(CollectiveMultiRack, TreeCeilingLeavesEightGpuHopperNodesAlone) {
  const auto t = multirack_h100();
  const auto e =
      estimate_collective_with(request(CollectiveOp::all_reduce, 1e9, 8, 16), t, RackAlgo::tree, Protocol::simple);
  ASSERT_TRUE(e.feasible) << e.reason;
  EXPECT_NEAR(e.level_bw_bytes_per_s[0], 450e9 * 0.822 * 0.92, 1e3);
}

// Over 20 racks at 4 GiB, Tree is held to its channel ceiling: Tree/Simple costs 2 x 4 GiB /
// 384 GB/s = 22.4 ms + its fixed part (~3.0 ms since the fifteenth session: its network hops'
// fill crosses a rack through its NICs together, cost/collective_simple_fill.h). NVLS_TREE since
// the sixteenth session: 3.8 x 4 GiB / 32 heads at one 64 KiB chunk per 3 us (21.85 GB/s,
// cost/collective_nvls_tree.h) = 23.3 ms + NVLS's 0.6 ms + a fill of 10 x 4.66 MB x 3.8 / 21.85
// GB/s = 8.1 ms: Tree is the cheaper line by ~20%, and auto runs it (CoreWeave: 24.8 ms measured).
TEST(CollectiveMultiRack, TwentyRacksLargeMessagesRunTreeOrNvlsTreeAtTheCeiling) {
  const auto t = multirack_nvl72();
  const double bytes = 4 * 1024.0 * 1024 * 1024;
  const auto e = estimate_collective(request(CollectiveOp::all_reduce, bytes, 72, 20), t);
  ASSERT_TRUE(e.feasible) << e.reason;
  EXPECT_EQ(e.algorithm, RackAlgo::tree);
  const auto tree =
      estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 72, 20), t, RackAlgo::tree, Protocol::simple);
  const auto nvls =
      estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 72, 20), t, RackAlgo::nvls, Protocol::simple);
  EXPECT_NEAR(tree.time_s / nvls.time_s, 0.81, 0.03);
  EXPECT_GT(e.time_s, 24e-3);
  EXPECT_LT(e.time_s, 28e-3);
}

// NVLS_TREE's Simple fill over N > 2 racks: until the pipe is full each of the 2 log2(N) tree
// steps costs one chunk, and a head NIC carries c = 2 x 2(N-1)/N shards, so a chunk crosses at
// 1/c of the head NIC's rate: since the sixteenth session the head's step rate (20 racks: one
// 64 KiB chunk per 3 us = 21.85 GB/s; 2 racks: 128 KiB per 3 us = 43.69 GB/s, below the NIC's
// 47.5; cost/collective_nvls_tree.h). 20 racks, 4 GiB (fill below the transfer): latency = NVLS
// base + 2 x 71 x per-GPU cost + 10 NET tree hops (Simple) + 1 chunk over the NVLS egress + 10 x
// chunk x 3.8 / 21.85 GB/s. Two racks: c = 1, the fill is 2 chunks at 43.69 GB/s.
TEST(CollectiveMultiRack, NvlsTreeFillRunsAtTheSharedHeadRate) {
  const auto t = multirack_nvl72();
  const double bytes = 4 * 1024.0 * 1024 * 1024;
  const int simple = static_cast<int>(Protocol::simple);
  const double inside = t.nvls_latency_s + 2 * 71 * t.nvls_hop_s;
  const double net_bw = 65536 / 3e-6;
  const auto twenty =
      estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 72, 20), t, RackAlgo::nvls, Protocol::simple);
  ASSERT_TRUE(twenty.feasible) << twenty.reason;
  const double in_bw = twenty.level_bw_bytes_per_s[0];
  const double fill20 = t.simple_step_bytes / in_bw + 10 * t.simple_step_bytes * 3.8 / net_bw;
  EXPECT_NEAR(twenty.latency_s, inside + 10 * t.levels[1].tree_hop_s[simple] + fill20, 1e-9);
  const auto two =
      estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 72, 2), t, RackAlgo::nvls, Protocol::simple);
  const double fill2 =
      t.simple_step_bytes / two.level_bw_bytes_per_s[0] + 2 * t.simple_step_bytes / (131072 / 3e-6);
  EXPECT_NEAR(two.latency_s, inside + 2 * t.levels[1].tree_hop_s[simple] + fill2, 1e-9);
}

}  // namespace
}  // namespace gpuplan
