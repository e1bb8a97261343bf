// Issue 32, fifth round: two mechanisms of NCCL across domains, each checked by hand arithmetic
// at a latency-bound and a bandwidth-bound size.
// - The Grace systems' transport (`infiniband-c2c`): the ConnectX-7 sits behind the Grace CPU,
//   so NCCL <= 2.26 runs LL and Simple across nodes, never LL128 (tuning.cc's LL128 gate:
//   typeInter <= PATH_PXN on Hopper+, and a NIC behind the CPU is PATH_PHB).
// - The double binary tree's network volume: each domain sends 2(M - 1)/M x the buffer through
//   its NICs (1 between two domains, each tree one root and one leaf; 4/3 for three).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "calibration/collective_question.h"
#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;
using C2cAlgo = CollectiveAlgorithm;

constexpr int kC2cLl = static_cast<int>(Protocol::ll);
constexpr int kC2cLl128 = static_cast<int>(Protocol::ll128);
constexpr int kC2cSimple = static_cast<int>(Protocol::simple);

CollectiveTopology c2c_topology(const char* system_id) {
  const Catalog& c = default_catalog();
  return make_collective_topology(c, c.system(system_id), nullptr, default_collective_params(c));
}

TEST(CollectiveC2cTransport, GraceSystemsNameIt) {
  for (const char* id : {"gb200-nvl72", "gh200-node"}) {
    const CollectiveTopology t = c2c_topology(id);
    EXPECT_EQ(t.transport, "infiniband-c2c") << id;
    EXPECT_EQ(t.transport_family, "InfiniBand") << id;
    EXPECT_TRUE(t.net_protocols[kC2cLl]) << id;
    EXPECT_FALSE(t.net_protocols[kC2cLl128]) << id;
    EXPECT_TRUE(t.net_protocols[kC2cSimple]) << id;
  }
  // An x86 DGX keeps NCCL's full set (its NICs sit under the GPUs' PCIe switches).
  EXPECT_EQ(c2c_topology("dgx-b200").transport, "infiniband");
  EXPECT_TRUE(c2c_topology("dgx-b200").net_protocols[kC2cLl128]);
}

// LL128 leaves the whole collective once it spans racks (NCCL_PROTO is per communicator), but
// stays inside one rack: forced LL128 across two racks is refused with the transport's reason,
// auto never picks it across racks, and one rack still runs it (AllGather, 512 MiB).
TEST(CollectiveC2cTransport, NoLl128AcrossRacks) {
  const CollectiveTopology t = c2c_topology("gb200-nvl72");
  const auto forced = estimate_collective_with(request(CollectiveOp::all_reduce, 8.0 * 1024 * 1024, 72, 2), t,
                                               C2cAlgo::ring, Protocol::ll128);
  EXPECT_FALSE(forced.feasible);
  EXPECT_NE(std::string(forced.reason).find("LL128"), std::string::npos) << forced.reason;
  for (int racks : {2, 20}) {
    for (double bytes : {65536.0, 8.0 * 1024 * 1024, 512.0 * 1024 * 1024, 16.0 * 1024 * 1024 * 1024}) {
      for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather}) {
        const auto e = estimate_collective(request(op, bytes, 72, racks), t);
        ASSERT_TRUE(e.feasible) << e.reason;
        EXPECT_NE(e.protocol, Protocol::ll128) << racks << " racks, " << bytes << " B";
      }
    }
  }
  const auto one_rack = estimate_collective(request(CollectiveOp::all_gather, 512.0 * 1024 * 1024, 72, 1), t);
  EXPECT_EQ(one_rack.protocol, Protocol::ll128);
}

// Latency-bound: 64 KiB AllReduce over 2 racks of 4 GPUs, Tree/LL, by hand: NCCL's Tree LL base
// 6.8 us x NVLink 5's fixed-cost ratio 1.30 + 2 (g - 1) = 6 NVLink tree LL hops + 2 log2(2) =
// 2 NET tree LL hops of 5.0 us. The transfer: the chain moves 2 x 64 KiB at NVLink 5's 900 x 0.758 GB/s x 0.92 / 3.8
// (Tree LL) under the two-node llMaxBw; each GPU's NIC moves 64 KiB / 4 (one exchange each way between two domains) at
// 50 x 0.95 GB/s x 0.92 / 3.8.
TEST(CollectiveC2cTransport, TreeLlAcrossTwoRacksByHand) {
  const CollectiveTopology t = c2c_topology("gb200-nvl72");
  const double bytes = 65536;
  const auto e =
      estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 4, 2), t, C2cAlgo::tree, Protocol::ll);
  ASSERT_TRUE(e.feasible) << e.reason;
  // NVLink 5's measured fixed-cost ratio (1.30, nccl.toml) scales NCCL's base with the NVLink
  // hops (already in tree_hop_s), not the NET hops.
  ASSERT_NEAR(t.fixed_cost_ratio, 1.30, 1e-12);
  EXPECT_NEAR(e.latency_s, 1.30 * 6.8e-6 + 6 * t.levels[0].tree_hop_s[kC2cLl] + 2 * 5.0e-6, 1e-12);
  const double ll = 0.92 / 3.8;
  const double chain_bw = std::min(900e9 * 0.758 * ll, t.ring_cap_bytes_per_s[1][kC2cLl]);
  const double nic_bw = 50e9 * 0.95 * ll;
  EXPECT_NEAR(e.transfer_s, std::max(2 * bytes / chain_bw, bytes / 4 / nic_bw), 1e-15);
  EXPECT_GT(e.latency_s, e.transfer_s);  // latency-bound
}

// Bandwidth-bound: 16 GiB over 20 racks, NVLS_TREE/Simple forced: each of the 32 head NICs of
// a rack carries 3.8 x 16 GiB / 72 x 72/32 = 3.8 x 16 GiB / 32 at the head's step rate, one 64
// KiB chunk per 3 us = 21.85 GB/s (below the NIC's 47.5: cost/collective_nvls_tree.h) = 93.4 ms;
// NVLS in the rack is faster. With its Simple fill at that rate (10 x 4.66 MB x 3.8 / 21.85 GB/s
// = 8.1 ms) the line is ~21% above CoreWeave's 84.6 ms (NCCL 2.26.2), and auto's ring/Simple
// (a chunk set crossing a rack through its NICs together, cost/collective_simple_fill.h) is the
// cheaper line, within 10% of the measurement.
TEST(CollectiveC2cTransport, TwentyRacksLargeByHand) {
  const CollectiveTopology t = c2c_topology("gb200-nvl72");
  const double bytes = 16.0 * 1024 * 1024 * 1024;
  const auto e =
      estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 72, 20), t, C2cAlgo::nvls, Protocol::simple);
  ASSERT_TRUE(e.feasible) << e.reason;
  const auto chosen = estimate_collective(request(CollectiveOp::all_reduce, bytes, 72, 20), t);
  EXPECT_LE(chosen.time_s, e.time_s);
  EXPECT_EQ(e.bottleneck_level, 1);
  EXPECT_NEAR(e.transfer_s, 2 * 2 * 19.0 / 20 * bytes / 32 / (65536 / 3e-6), 1e-9);
  EXPECT_GT(e.transfer_s, 10 * e.latency_s);  // bandwidth-bound
  EXPECT_NEAR(chosen.time_s / 84625e-6, 1.0, 0.10);
}

// The double binary tree's network volume on 8-GPU nodes with slow NICs (GCP A3 Mega, TCPXO:
// 8 x 200 Gb/s at 0.946): per GPU the NIC carries 2(M-1)/M x bytes / 8, i.e. bytes / 8 between
// two nodes, 3/2 x bytes / 8 among four; at 8 GiB the chain (2 x bytes at 450 x 0.822 x 0.92
// GB/s = 340.3 GB/s) binds at two nodes (the NICs: bytes / 8 at 21.8 GB/s = bytes / 174 GB/s),
// the NICs at four (bytes / 116 GB/s).
TEST(CollectiveTreeVolume, TwoMinusTwoOverMBuffersPerDomain) {
  const CollectiveTopology t = c2c_topology("gcp-a3-mega");
  const double bytes = 8.0 * 1024 * 1024 * 1024;
  const double nic_bw = 25e9 * 0.946 * 0.92;
  const double chain_bw = 450e9 * 0.822 * 0.92;
  const auto two =
      estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 8, 2), t, C2cAlgo::tree, Protocol::simple);
  ASSERT_TRUE(two.feasible) << two.reason;
  EXPECT_NEAR(two.level_bytes[1], bytes / 8, 1);
  EXPECT_NEAR(two.level_bytes[0], 2 * bytes, 1);
  EXPECT_NEAR(two.transfer_s, std::max(2 * bytes / chain_bw, bytes / 8 / nic_bw), 1e-9);
  EXPECT_EQ(two.bottleneck_level, 0);
  const auto four =
      estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 8, 4), t, C2cAlgo::tree, Protocol::simple);
  ASSERT_TRUE(four.feasible) << four.reason;
  EXPECT_NEAR(four.level_bytes[1], 1.5 * bytes / 8, 1);
  EXPECT_NEAR(four.transfer_s, 1.5 * bytes / 8 / nic_bw, 1e-9);
  EXPECT_EQ(four.bottleneck_level, 1);
  // Latency-bound, 8 B over two nodes: the transport's fixed cost + NCCL's Tree Simple base
  // 8.4 us (H100: fixed-cost ratio 1) + 14 NVLink tree Simple hops + 2 NET tree Simple hops of 14 us + Tree/Simple's
  // fill: the 8 B as one chunk at each of the 14 chain hops and the 2 network hops (through the node's 8 NICs),
  // cost/collective_simple_fill.h.
  const auto tiny =
      estimate_collective_with(request(CollectiveOp::all_reduce, 8, 8, 2), t, C2cAlgo::tree, Protocol::simple);
  const double fixed = t.net_base_s + 8.4e-6 + 14 * t.levels[0].tree_hop_s[kC2cSimple] + 2 * 14e-6;
  const double fill = 14 * 8.0 / chain_bw + 2 * 8.0 / (8 * nic_bw);
  EXPECT_NEAR(tiny.latency_s, fixed + fill, 1e-12);
  EXPECT_GT(tiny.latency_s, 100 * tiny.transfer_s);
}

// `gpuplan collective` says the tree's share when Tree wins across domains (2 x 8 H100 over TCPXO
// at 8 GiB, where the profile allows Ring and Tree): 2 (2 - 1) / 2 = 1 buffer per domain.
TEST(CollectiveTreeVolume, WhyNamesTheShare) {
  const CollectiveTopology t = c2c_topology("gcp-a3-mega");
  CollectiveQuery q;
  q.request = request(CollectiveOp::all_reduce, 8.0 * 1024 * 1024 * 1024, 8, 2);
  const auto chosen = estimate_collective(q.request, t);
  ASSERT_EQ(chosen.algorithm, C2cAlgo::tree);
  const std::string why = collective_why(q, t, chosen, collective_candidates(q.request, t));
  EXPECT_NE(why.find("double binary tree across the 2 domains: each sends 1 x the buffer"), std::string::npos) << why;
}

}  // namespace
}  // namespace gpuplan
