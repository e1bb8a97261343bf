// NCCL's protocol bandwidths as its tuner states them (src/graph/tuning.cc, "Various model
// refinements"), by hand: ring LL busBw = min(llMaxBw, busBw / 2), ring LL128 =
// min(0.92 busBw, nChannels x perChMaxRingLL128Bw), Tree busBw x 0.92 then LL / 3.8 and LL128
// x 120/128, with the ceilings per GPU generation ([[link]] ll_max_gb_per_s,
// ring_ll128_channel_max_gb_per_s in data/fitted/collectives/nccl.toml).
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;
using testing::test_node;

constexpr int kCapsLl = static_cast<int>(Protocol::ll);
constexpr int kCapsLl128 = static_cast<int>(Protocol::ll128);
constexpr int kCapsSimple = static_cast<int>(Protocol::simple);

// Ideal parameters (line rate, no latency) with NCCL's ring fractions and one link entry that
// carries the generation's ceilings; no LL channel narrowing unless asked.
CollectiveParams caps_params(double ll_max, double ll128_per_channel, int channels = 16) {
  CollectiveParams p = ideal_collective_params();
  p.ll_bw_fraction = 0.5;
  p.ll128_bw_fraction = 0.92;
  p.tree_bw_fraction = {0.92 / 3.8, 0.92 * 120 / 128, 0.92};
  p.ll_channels = channels;
  p.ll_channel_fill_bytes_per_rank = 4096;
  for (auto& l : p.links) {
    l.ll_max_bw_bytes_per_s = {ll_max, 39e9, 20.4e9};
    l.ring_ll128_channel_max_bw_bytes_per_s = {ll128_per_channel, ll128_per_channel, ll128_per_channel};
  }
  return p;
}

// 8 GPUs at 450 GB/s: ring LL runs at min(225, 141) = 141 GB/s busbw (Hopper's llMaxBw), so an
// AllGather of 4 MiB (every channel filled: 4 MiB >= 16 x 32 KiB) moves 7/8 x 4 MiB at 141 GB/s;
// with a higher ceiling (282, Blackwell's) half the link rate binds: 225 GB/s.
TEST(CollectiveProtocolCaps, RingLlIsHalfTheRingRateUnderLlMaxBw) {
  const Catalog empty{};
  const double bytes = 4194304;
  const auto hopper = make_collective_topology(empty, test_node(), nullptr, caps_params(141e9, 36.7e9));
  EXPECT_DOUBLE_EQ(hopper.ring_cap_bytes_per_s[0][kCapsLl], 141e9);
  EXPECT_DOUBLE_EQ(hopper.ring_cap_bytes_per_s[1][kCapsLl], 39e9);
  EXPECT_DOUBLE_EQ(hopper.ring_cap_bytes_per_s[2][kCapsLl], 20.4e9);
  EXPECT_EQ(hopper.ring_cap_bytes_per_s[0][kCapsSimple], 0);
  const auto ll = estimate_collective_with(request(CollectiveOp::all_gather, bytes, 8), hopper,
                                           CollectiveAlgorithm::ring, Protocol::ll);
  EXPECT_NEAR(ll.transfer_s, 7.0 / 8 * bytes / 141e9, 1e-15);
  const auto blackwell = make_collective_topology(empty, test_node(), nullptr, caps_params(282e9, 40e9));
  const auto half = estimate_collective_with(request(CollectiveOp::all_gather, bytes, 8), blackwell,
                                             CollectiveAlgorithm::ring, Protocol::ll);
  EXPECT_NEAR(half.transfer_s, 7.0 / 8 * bytes / 225e9, 1e-15);
}

// Below all channels' fill the narrowing scales the ceiling too: 128 KiB on 8 GPUs runs 4 of 16
// channels, so 141 GB/s x 4/16 = 35.25 GB/s for 7/8 x 128 KiB.
TEST(CollectiveProtocolCaps, NarrowedRingLlSharesTheCeiling) {
  const Catalog empty{};
  const auto t = make_collective_topology(empty, test_node(), nullptr, caps_params(141e9, 36.7e9));
  const auto e = estimate_collective_with(request(CollectiveOp::all_gather, 131072, 8), t, CollectiveAlgorithm::ring,
                                          Protocol::ll);
  EXPECT_NEAR(e.transfer_s, 7.0 / 8 * 131072 / (141e9 * 4 / 16), 1e-15);
  // Two concurrent collectives each get half: the same ceiling halved.
  CollectiveRequest two = request(CollectiveOp::all_gather, 4194304, 8);
  two.concurrent = 2;
  const auto shared = estimate_collective_with(two, t, CollectiveAlgorithm::ring, Protocol::ll);
  EXPECT_NEAR(shared.transfer_s, 7.0 / 8 * 4194304 / (141e9 / 2), 1e-15);
}

// Ring LL128: 0.92 x 450 = 414 GB/s, under 16 channels x 36.7 = 587.2 GB/s (Hopper); with
// Ampere's 20 GB/s per channel the ceiling, 320 GB/s, binds instead.
TEST(CollectiveProtocolCaps, RingLl128UnderTheChannelCeiling) {
  const Catalog empty{};
  const double bytes = 67108864;
  const auto hopper = make_collective_topology(empty, test_node(), nullptr, caps_params(141e9, 36.7e9));
  EXPECT_DOUBLE_EQ(hopper.ring_cap_bytes_per_s[0][kCapsLl128], 16 * 36.7e9);
  const auto fraction = estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 8), hopper,
                                                 CollectiveAlgorithm::ring, Protocol::ll128);
  EXPECT_NEAR(fraction.transfer_s, 2 * 7.0 / 8 * bytes / (0.92 * 450e9), 1e-13);
  const auto ampere = make_collective_topology(empty, test_node(), nullptr, caps_params(87.7e9, 20e9));
  const auto capped = estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 8), ampere,
                                               CollectiveAlgorithm::ring, Protocol::ll128);
  EXPECT_NEAR(capped.transfer_s, 2 * 7.0 / 8 * bytes / 320e9, 1e-13);
}

// Across two nodes ring LL is capped at the two-node llMaxBw (39 GB/s) on the domain's links,
// which carry (g - 1)/g of the ring's wire: AllReduce of 1 MiB over 2 x 8 GPUs moves
// 2 x 15/16 x 7/8 MiB per GPU over NVLink at 39 GB/s (the NICs, 50 GB/s x 1/2 for LL, carry
// 2 x 15/16 x 1/8 MiB per GPU: less time).
TEST(CollectiveProtocolCaps, TwoNodeRingLlAtTheTwoNodeCeiling) {
  const Catalog empty{};
  const auto t = make_collective_topology(empty, test_node(), nullptr, caps_params(141e9, 36.7e9));
  const double bytes = 1048576;
  const auto e = estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 8, 2), t, CollectiveAlgorithm::ring,
                                          Protocol::ll);
  ASSERT_TRUE(e.feasible) << e.reason;
  EXPECT_NEAR(e.level_time_s[0], 2 * 15.0 / 16 * 7.0 / 8 * bytes / 39e9, 1e-15);
  EXPECT_EQ(e.bottleneck_level, 0);
}

// Tree AllReduce across domains runs at NCCL's Tree fractions: LL 0.92 / 3.8 of the chain's
// rate (under the same llMaxBw), Simple 0.92.
TEST(CollectiveProtocolCaps, TreeFractions) {
  const Catalog empty{};
  CollectiveParams p = caps_params(1e15, 1e15);  // ceilings out of the way
  const auto t = make_collective_topology(empty, test_node(), nullptr, p);
  EXPECT_DOUBLE_EQ(t.tree_protocol_bw_fraction[kCapsSimple], 0.92);
  const double bytes = 268435456;
  const auto simple = estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 8, 2), t,
                                               CollectiveAlgorithm::tree, Protocol::simple);
  EXPECT_NEAR(simple.level_bw_bytes_per_s[0], 450e9 * 0.92, 1);
  const auto ll = estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 8, 2), t, CollectiveAlgorithm::tree,
                                           Protocol::ll);
  EXPECT_NEAR(ll.level_bw_bytes_per_s[0], 39e9, 1);  // 450 x 0.92 / 3.8 = 108.9 GB/s, above the 2-node 39
}

// GPUs that talk over PCIe run LL and Simple, never LL128 (NCCL: LL128 only where the paths
// inside a node are NVLink, typeIntra <= PATH_NVB): forced LL128 is refused with the reason,
// and auto picks among the other two at every size.
TEST(CollectiveProtocolCaps, NoLl128BetweenPcieGpus) {
  const Catalog empty{};
  System box = test_node(64e9);
  box.scaleup_link = "pcie5";
  box.scaleup_topology = "pcie";
  box.in_network_reduction = false;
  const auto t = make_collective_topology(empty, box, nullptr, caps_params(87.7e9, 20e9));
  ASSERT_EQ(t.scaleup, ScaleupKind::pcie);
  const auto forced = estimate_collective_with(request(CollectiveOp::all_reduce, 8388608, 8), t,
                                               CollectiveAlgorithm::ring, Protocol::ll128);
  EXPECT_FALSE(forced.feasible);
  EXPECT_NE(std::string(forced.reason).find("LL128"), std::string::npos) << forced.reason;
  for (double bytes = 512; bytes <= 8.6e9; bytes *= 8) {
    const auto e = estimate_collective(request(CollectiveOp::all_reduce, bytes, 8), t);
    ASSERT_TRUE(e.feasible) << bytes;
    EXPECT_NE(e.protocol, Protocol::ll128) << bytes;
  }
  // The same node on NVLink may run it.
  const auto nvlink = make_collective_topology(empty, test_node(), nullptr, caps_params(141e9, 36.7e9));
  EXPECT_TRUE(estimate_collective_with(request(CollectiveOp::all_reduce, 8388608, 8), nvlink, CollectiveAlgorithm::ring,
                                       Protocol::ll128)
                  .feasible);
}

// The shipped ceilings by scale (one node, two nodes, more) sit on the NVLink entries only.
TEST(CollectiveProtocolCaps, ShippedCeilingsByScale) {
  const CollectiveParams& shipped = default_collective_params(default_catalog());
  const CollectiveLinkParams* nv4 = shipped.find_link("nvlink4", "nvlink");
  ASSERT_NE(nv4, nullptr);
  EXPECT_DOUBLE_EQ(nv4->ll_max_bw_bytes_per_s[1], 39e9);
  EXPECT_DOUBLE_EQ(nv4->ring_ll128_channel_max_bw_bytes_per_s[2], 36.7e9);
  const CollectiveLinkParams* ib = shipped.find_link("infiniband", "infiniband");
  ASSERT_NE(ib, nullptr);
  EXPECT_EQ(ib->ll_max_bw_bytes_per_s[0], 0);  // NCCL's ceilings are per GPU generation, not per NIC
}

// The shipped file carries NCCL's figures, not fitted ones: ring LL 1/2, LL128 0.92, and the
// per-generation ceilings on the NVLink entries (Ampere 87.7, Hopper 141, Blackwell 282 GB/s).
TEST(CollectiveProtocolCaps, ShippedFiguresAreNcclS) {
  const Catalog& c = default_catalog();
  const CollectiveParams& p = default_collective_params(c);
  EXPECT_EQ(p.ll_bw_fraction, 0.5);
  EXPECT_EQ(p.ll128_bw_fraction, 0.92);
  EXPECT_NEAR(p.tree_bw_fraction[kCapsLl], 0.92 / 3.8, 1e-4);
  const auto h100 = make_collective_topology(c, c.system("dgx-h100"), nullptr, p);
  EXPECT_DOUBLE_EQ(h100.ring_cap_bytes_per_s[0][kCapsLl], 141e9);
  EXPECT_DOUBLE_EQ(h100.ring_cap_bytes_per_s[0][kCapsLl128], 16 * 36.7e9);
  const auto a100 = make_collective_topology(c, c.system("dgx-a100"), nullptr, p);
  EXPECT_DOUBLE_EQ(a100.ring_cap_bytes_per_s[0][kCapsLl], 87.7e9);
  const auto b200 = make_collective_topology(c, c.system("dgx-b200"), nullptr, p);
  EXPECT_DOUBLE_EQ(b200.ring_cap_bytes_per_s[0][kCapsLl], 282e9);
}

}  // namespace
}  // namespace gpuplan
