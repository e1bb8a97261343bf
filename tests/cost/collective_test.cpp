// Golden tests for the collective model: the seed documents' networking figures, checked (not
// copied) with the idealised parameters (line rate, no latency), and the hand derivations
// behind each formula. Seed: shared/seeds/004_97caa601c296245a.txt.
#include "cost/collective.h"

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/error.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;
using testing::seed_superpod;
using testing::test_node;
using Algo = CollectiveAlgorithm;

const Catalog kEmpty{};

CollectiveTopology ideal(const System& s, const Fabric* f = nullptr) {
  return make_collective_topology(kEmpty, s, f, ideal_collective_params());
}

// Seed 004 line 268: 8 GPUs x 450 GB/s = 3.6 TB/s leave an H100 node's GPUs at once (the
// switches could take 6.4 TB/s). An ideal AllGather moves (n-1)/n of the buffer out of every
// GPU, so 8 x (7/8) x bytes / time is the node's total.
TEST(CollectiveGolden, H100NodeMoves3p6TBPerSecond) {
  const auto t = ideal(test_node());
  const double bytes = 1 * 1024.0 * 1024 * 1024;
  const auto e = estimate_collective(request(CollectiveOp::all_gather, bytes, 8), t);
  ASSERT_TRUE(e.feasible) << e.reason;
  EXPECT_NEAR(8 * (7.0 / 8) * bytes / e.time_s, 3.6e12, 1e6);
  EXPECT_DOUBLE_EQ(t.levels[0].line_bw_bytes_per_s * t.domain_gpus, 3.6e12);
}

// Seed 004 "In network reduction": with the switch reducing, each GPU sends the buffer once and
// receives it once, so AllReduce costs bytes / egress bandwidth, not 2(n-1)/n x that.
TEST(CollectiveGolden, SingleNodeInNetworkAllReduceIsBytesOverEgress) {
  const auto t = ideal(test_node());
  const double bytes = 256e6;
  const auto nvls = estimate_collective(request(CollectiveOp::all_reduce, bytes, 8, 1, Algo::nvls), t);
  ASSERT_TRUE(nvls.feasible) << nvls.reason;
  EXPECT_DOUBLE_EQ(nvls.time_s, bytes / 450e9);
  const auto ring = estimate_collective(request(CollectiveOp::all_reduce, bytes, 8, 1, Algo::ring), t);
  EXPECT_DOUBLE_EQ(ring.time_s, 2 * 7.0 / 8 * bytes / 450e9);
  // auto takes the cheaper one
  EXPECT_EQ(estimate_collective(request(CollectiveOp::all_reduce, bytes, 8), t).algorithm, Algo::nvls);
}

// Seed 004 lines 310-314: T = max_i(bytes * N_i / W_i) with N = 8, 32, 4 subdomains and
// W = 3.6, 12.8, 25.6 TB/s: max(2.2e-12, 2.5e-12, 1.56e-13) x bytes, leaf-bound, 400 GB/s.
// The same per-level code gives each term.
TEST(CollectiveGolden, SuperPodAllReduceIsLeafBoundAt400GBps) {
  const System node = test_node();
  const Fabric pod = seed_superpod();
  const auto t = ideal(node, &pod);
  const double bytes = 1e9;
  const auto e = estimate_collective(request(CollectiveOp::all_reduce, bytes, 8, 128, Algo::nvls), t);
  ASSERT_TRUE(e.feasible) << e.reason;
  const double node_term = bytes * 8 / 3.6e12;
  const double leaf_term = bytes * 32 / 12.8e12;
  const double spine_term = bytes * 4 / 25.6e12;
  EXPECT_NEAR(e.level_time_s[0], node_term, 1e-15);
  EXPECT_NEAR(e.level_time_s[1], leaf_term, 1e-15);
  EXPECT_NEAR(e.level_time_s[2], spine_term, 1e-15);
  EXPECT_NEAR(e.time_s, std::max({node_term, leaf_term, spine_term}), 1e-15);
  EXPECT_EQ(t.level_names[e.bottleneck_level], "leaf");
  EXPECT_NEAR(e.algbw_bytes_per_s, 400e9, 1e3);
}

// Seed 004 problem 2 (line 442): with 256-way model parallelism each data-parallel group has one
// GPU in each of the 4 SUs (nodes 32 apart) and reduces 1/256 of the gradients; 256 groups share
// the spine's 25.6 TB/s (25 GB/s per GPU), so with SHARP the AllReduce bandwidth seen by the
// whole gradient is 25.6 TB/s / 4 = 6.4 TB/s.
TEST(CollectiveGolden, SpineAllReduceUnder256WayModelParallelismIs6p4TBps) {
  const System node = test_node();
  const Fabric pod = seed_superpod();
  const auto t = ideal(node, &pod);
  const double gradient_bytes = 256e9;
  auto r = request(CollectiveOp::all_reduce, gradient_bytes / 256, 1, 4, Algo::nvls);
  r.domain_stride = 32;
  const auto e = estimate_collective(r, t);
  ASSERT_TRUE(e.feasible) << e.reason;
  EXPECT_EQ(t.level_names[e.bottleneck_level], "spine");
  EXPECT_NEAR(gradient_bytes / e.time_s, 6.4e12, 1e3);
  // The seed's general rule (line 382): B * S_i / (max(Y, S_{i-1}) * W_i) at the spine.
  EXPECT_NEAR(e.time_s, gradient_bytes * 1024 / (256 * 25.6e12), 1e-12);
  // Without SHARP a ring across the 4 SUs moves 2(4-1)/4 of the shard: 1.5x slower.
  r.algorithm = Algo::ring;
  EXPECT_NEAR(estimate_collective(r, t).time_s, 1.5 * e.time_s, 1e-12);
}

// Seed 004 "B100 and GB200 NVL72": NVLink 5 doubles the per-GPU bandwidth (900 GB/s), so every
// node-level AllReduce and AllGather takes half the time.
TEST(CollectiveGolden, Nvl72DoublesNodeLevelBandwidth) {
  const auto h100 = ideal(test_node(450e9, 8));
  const auto nvl72 = ideal(test_node(900e9, 72));
  for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
    const auto a = estimate_collective(request(op, 1e9, 8, 1, Algo::ring), h100);
    const auto b = estimate_collective(request(op, 1e9, 8, 1, Algo::ring), nvl72);
    EXPECT_DOUBLE_EQ(a.time_s / b.time_s, 2.0) << op_name(op);
  }
  EXPECT_DOUBLE_EQ(nvl72.levels[0].line_bw_bytes_per_s / h100.levels[0].line_bw_bytes_per_s, 2.0);
}

// Seed 004 line 256 says AllGather of bf16[1024, 16384] (32 MiB) on 8xH100 takes 33.5e6 / 3.6e12
// = 9 us: that divides by N once too often. (N-1) B / (N W) at 450 GB/s is 65 us before latency
// and protocol efficiency; nccl-tests measures 125.5 us (shared/data/collectives.csv). See
// docs/seed-errata.md.
TEST(CollectiveGolden, SeedAllGatherOf32MiBIs65usNot9us) {
  const double bytes = 1024.0 * 16384 * 2;
  ASSERT_EQ(bytes, 33554432.0);
  const auto e = estimate_collective(request(CollectiveOp::all_gather, bytes, 8), ideal(test_node()));
  EXPECT_NEAR(e.time_s * 1e6, 7.0 / 8 * bytes / 450e9 * 1e6, 1e-9);
  EXPECT_NEAR(e.time_s * 1e6, 65.2, 0.1);
  EXPECT_GT(e.time_s, 7 * 9e-6);  // the seed's figure is 7x too small
}

TEST(CollectiveGolden, FittedModelMatchesNcclTestsFor32MiBAllGather) {
  const Catalog& c = default_catalog();
  const auto t = make_collective_topology(c, c.system("dgx-h100"), nullptr, default_collective_params(c));
  const auto e = estimate_collective(request(CollectiveOp::all_gather, 33554432.0, 8), t);
  // Measured 125.5 us. The model gives 111.2 us (-11.4%) since ring LL128 runs at NCCL's 0.92 of
  // the ring rate instead of the fitted 0.86 (-6.6%, 117.2 us, before 2026-11-27); this row is
  // among those docs/validation.md lists as worse (issue 32, fourth round).
  EXPECT_NEAR(e.time_s * 1e6, 125.5, 125.5 * 0.12);
}

// Hand derivation of one line: ring AllGather, 4 GPUs, Simple only (LL/LL128 made useless),
// base 10 us, hop 2 us, no pipeline fill, efficiency 0.5 on 100 GB/s:
// 10 + 3 x 2 + (3/4 x 1e9) / 50e9 s = 16 us + 15 ms.
TEST(CollectiveFormula, RingLineByHand) {
  CollectiveParams p = ideal_collective_params();
  p.ring_base_latency_s = {1, 1, 10e-6};
  p.links[0].ring_hop_latency_s = {1, 1, 2e-6};
  p.links[0].bw_efficiency = 0.5;
  const auto t = make_collective_topology(kEmpty, test_node(100e9, 4), nullptr, p);
  const auto e = estimate_collective(request(CollectiveOp::all_gather, 1e9, 4), t);
  EXPECT_EQ(e.protocol, Protocol::simple);
  EXPECT_NEAR(e.latency_s, 16e-6, 1e-12);
  EXPECT_NEAR(e.transfer_s, 0.75e9 / 50e9, 1e-12);
  EXPECT_NEAR(e.busbw_bytes_per_s, e.algbw_bytes_per_s * 3 / 4, 1e-3);
}

// Simple's pipeline fill: steps x step bytes at the bottleneck rate, never more than the transfer.
TEST(CollectiveFormula, SimpleFillIsCappedByTheTransfer) {
  CollectiveParams p = ideal_collective_params();
  p.ll_bw_fraction = p.ll128_bw_fraction = 1e-3;  // force Simple
  p.simple_step_bytes = 1e6;
  const auto t = make_collective_topology(kEmpty, test_node(100e9, 8), nullptr, p);
  const auto big = estimate_collective(request(CollectiveOp::all_gather, 8e9, 8), t);
  EXPECT_NEAR(big.latency_s, 7 * 1e6 / 100e9, 1e-12);
  const auto small = estimate_collective(request(CollectiveOp::all_gather, 8e3, 8), t);
  EXPECT_NEAR(small.latency_s, small.transfer_s, 1e-15);
}

// AllToAll inside an NVSwitch node is direct: (n-1)/n of the buffer leaves each GPU. Across
// nodes, (n-g)/n leaves through the NIC and bounds it (50 GB/s vs 450 GB/s).
TEST(CollectiveFormula, AllToAllDirectInNodeNicBoundAcross) {
  const auto t = ideal(test_node());
  const auto in_node = estimate_collective(request(CollectiveOp::all_to_all, 8e9, 8), t);
  EXPECT_EQ(in_node.algorithm, Algo::direct);
  EXPECT_NEAR(in_node.time_s, 7.0 / 8 * 8e9 / 450e9, 1e-12);
  const auto across = estimate_collective(request(CollectiveOp::all_to_all, 8e9, 8, 4), t);
  EXPECT_EQ(across.bottleneck_level, 1);
  EXPECT_NEAR(across.time_s, 24.0 / 32 * 8e9 / 50e9, 1e-12);
}

// k collectives on the same links each get 1/k.
TEST(CollectiveFormula, ConcurrentCollectivesShareTheLinks) {
  const auto t = ideal(test_node());
  auto r = request(CollectiveOp::all_reduce, 1e9, 8, 1, Algo::ring);
  const double alone = estimate_collective(r, t).time_s;
  r.concurrent = 3;
  EXPECT_NEAR(estimate_collective(r, t).time_s, 3 * alone, 1e-12);
}

// A 2:1 oversubscribed leaf halves what each GPU can send to the spine.
TEST(CollectiveFormula, OversubscriptionThrottlesTheLevelAbove) {
  const System node = test_node();
  Fabric pod = seed_superpod();
  pod.levels[1].bw_uni_bytes_per_s = 51.2e12;  // spine no longer the limit: 50 GB/s per GPU
  const auto full = ideal(node, &pod);
  pod.levels[0].oversubscription = 2.0;
  const auto over = ideal(node, &pod);
  EXPECT_DOUBLE_EQ(full.levels[2].line_bw_bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(over.levels[2].line_bw_bytes_per_s, 25e9);
  EXPECT_DOUBLE_EQ(over.levels[1].line_bw_bytes_per_s, 50e9);  // traffic inside the leaf is unaffected
}

// Rail-optimised: NIC i of all 32 nodes of an SU share leaf switch i, so rail-aligned traffic of
// a 16-node group stays in the leaf. Otherwise a leaf switch holds 4 whole nodes and the same
// group crosses the spine.
TEST(CollectiveFormula, RailOptimisedKeepsRailTrafficInTheLeaf) {
  const System node = test_node();
  Fabric pod = seed_superpod();
  const auto rail = ideal(node, &pod);
  pod.rail_optimized = false;
  const auto racks = ideal(node, &pod);
  const auto r = request(CollectiveOp::all_reduce, 1e9, 8, 16, Algo::ring);
  EXPECT_DOUBLE_EQ(estimate_collective(r, rail).level_bytes[2], 0.0);
  EXPECT_GT(estimate_collective(r, racks).level_bytes[2], 0.0);
}

// A point-to-point mesh (MI300X: 64 GB/s to each of 7 peers) gives a group of g only g-1 links.
TEST(CollectiveFormula, MeshBandwidthGrowsWithGroupSize) {
  System mi = test_node(448e9);
  mi.scaleup_topology = "mesh";
  mi.scaleup_per_peer_bw_uni_bytes_per_s = 64e9;
  mi.in_network_reduction = false;
  const auto t = ideal(mi);
  const auto two = estimate_collective(request(CollectiveOp::all_reduce, 1e9, 2), t);
  const auto eight = estimate_collective(request(CollectiveOp::all_reduce, 1e9, 8), t);
  EXPECT_NEAR(two.busbw_bytes_per_s, 64e9, 1e3);
  EXPECT_NEAR(eight.busbw_bytes_per_s, 448e9, 1e3);
}

TEST(CollectiveFormula, BusBandwidthFactorsFollowNcclTests) {
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_gather, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_to_all, 2), 0.5);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::send_recv, 2), 1.0);
}

TEST(CollectiveRequestCheck, BadInputIsAnErrorWithAFix) {
  System a100 = test_node(300e9);
  a100.in_network_reduction = false;
  const auto t = ideal(a100);
  EXPECT_THROW(check_collective_request(request(CollectiveOp::all_reduce, 1e6, 9), t), Error);  // 9 > 8 per node
  EXPECT_THROW(check_collective_request(request(CollectiveOp::all_reduce, 0, 8), t), Error);
  EXPECT_THROW(check_collective_request(request(CollectiveOp::all_reduce, -5, 8), t), Error);
  try {
    check_collective_request(request(CollectiveOp::all_reduce, 1e6, 8, 1, Algo::nvls), t);
    FAIL() << "nvls on a system without it must be an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("NVLS"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_collective_request(request(CollectiveOp::all_gather, 1e6, 8, 1, Algo::tree), t), Error);
  EXPECT_THROW(check_collective_request(request(CollectiveOp::send_recv, 1e6, 1), t), Error);  // needs 2 or more
  // Infeasible requests are values for the search, never exceptions.
  const auto e = estimate_collective(request(CollectiveOp::all_reduce, 1e6, 8, 1, Algo::nvls), t);
  EXPECT_FALSE(e.feasible);
  EXPECT_STRNE(e.reason, "");
}

TEST(CollectiveRequestCheck, FabricLimitsTheGroup) {
  const System node = test_node();
  const Fabric pod = seed_superpod();
  const auto t = ideal(node, &pod);
  EXPECT_NO_THROW(check_collective_request(request(CollectiveOp::all_reduce, 1e6, 8, 128), t));
  EXPECT_THROW(check_collective_request(request(CollectiveOp::all_reduce, 1e6, 8, 129), t), Error);
  auto strided = request(CollectiveOp::all_reduce, 1e6, 1, 4);
  strided.domain_stride = 32;
  EXPECT_NO_THROW(check_collective_request(strided, t));
  strided.domains = 5;
  EXPECT_THROW(check_collective_request(strided, t), Error);
}

TEST(CollectiveNames, ParseAndPrint) {
  EXPECT_EQ(parse_op("AllReduce"), CollectiveOp::all_reduce);
  EXPECT_EQ(parse_op("all-gather"), CollectiveOp::all_gather);
  EXPECT_EQ(parse_op("reduce_scatter"), CollectiveOp::reduce_scatter);
  EXPECT_FALSE(parse_op("allreduse").has_value());
  EXPECT_EQ(parse_algorithm("NVLS"), Algo::nvls);
  EXPECT_EQ(op_name(CollectiveOp::send_recv), "sendrecv");
  EXPECT_EQ(protocol_name(Protocol::ll128), "LL128");
}

}  // namespace
}  // namespace gpuplan
