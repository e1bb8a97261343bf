// RCCL's network path, by hand arithmetic on the shipped data (issue 32, sixteenth session,
// docs/model/collectives.md "RCCL across nodes"):
// - LL across nodes at the host's rate: the net transport keeps a sender's LL buffer in host
//   memory even with GPUDirect RDMA (ROCm/rccl 0cbce2a7 src/transport/net.cc:752; NVIDIA/nccl
//   5067397c net.cc:917), so LL crossing nodes runs at NCCL's llMaxBws row for AMD hosts (22.5
//   GB/s two nodes, 19.0 more; tuning.cc:180); the [[link]] xgmi entry sets no ceiling inside a node.
// - Point-to-point across the network on Simple only: no LL buffers for network peers
//   (NCCL_ALLOC_P2P_NET_LL_BUFFERS=0; ROCm/rccl 0cbce2a7 src/enqueue.cc:590, net.cc:765).
#include <gtest/gtest.h>

#include <string>

#include "calibration/collective_question.h"
#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;
using Algo = CollectiveAlgorithm;

constexpr int kRcclNetLl = static_cast<int>(Protocol::ll);
constexpr int kRcclNetSimple = static_cast<int>(Protocol::simple);

CollectiveTopology rccl_net_topology(const char* system_id) {
  const Catalog& c = default_catalog();
  return make_collective_topology(c, c.system(system_id), nullptr, default_collective_params(c));
}

// The ceilings as data: none inside one xGMI node, 22.5 GB/s across two nodes, 19.0 beyond.
TEST(CollectiveRcclNet, LlCeilingOnlyAcrossNodes) {
  const CollectiveTopology t = rccl_net_topology("mi355x-8");
  EXPECT_EQ(t.library, "rccl");
  EXPECT_EQ(t.ring_cap_bytes_per_s[0][kRcclNetLl], 0);
  EXPECT_DOUBLE_EQ(t.ring_cap_bytes_per_s[1][kRcclNetLl], 22.5e9);
  EXPECT_DOUBLE_EQ(t.ring_cap_bytes_per_s[2][kRcclNetLl], 19.0e9);
  // One node keeps the mesh's LL rate: a ring AllGather of 1 MiB on 8 MI355X at LL runs on
  // its links (535.5 GB/s x 0.75 x the LL fraction, narrowed), not at 22.5 GB/s.
  const auto one_node =
      estimate_collective_with(request(CollectiveOp::all_gather, 1 << 20, 8), t, Algo::ring, Protocol::ll);
  ASSERT_TRUE(one_node.feasible) << one_node.reason;
  EXPECT_GT(one_node.level_bw_bytes_per_s[0], 22.5e9);
}

// 2 x 8 MI355X over RoCE, Tree/LL. Fixed cost: RCCL's base 12 us + 2 x (8 - 1) xGMI tree LL
// hops of 1.2 us + 2 x log2(2) NET tree LL hops of 5.0 us = 38.8 us. The chain inside each
// node moves 2 x bytes per GPU, at the host's LL rate 22.5 GB/s (the NICs carry bytes / 8 per
// GPU at 50 GB/s x 0.9 x 0.92 / 3.8 = 10.9 GB/s: not the bound).
//   latency-bound, 16 B:   38.8 us + 2 x 16 B / 22.5 GB/s = 38.8014 us
//   bandwidth-bound, 16 MiB: 38.8 us + 2 x 16,777,216 B / 22.5 GB/s = 38.8 + 1491.31 = 1530.11 us
TEST(CollectiveRcclNet, TreeLlAcrossNodesAtTheHostRateByHand) {
  const CollectiveTopology t = rccl_net_topology("mi355x-8");
  EXPECT_NEAR(t.tree_base_s[kRcclNetLl], 12e-6, 1e-12);
  EXPECT_NEAR(t.levels[0].tree_hop_s[kRcclNetLl], 1.2e-6, 1e-12);
  EXPECT_NEAR(t.levels[1].tree_hop_s[kRcclNetLl], 5.0e-6, 1e-12);
  for (const double bytes : {16.0, 16777216.0}) {
    const auto e =
        estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 8, 2), t, Algo::tree, Protocol::ll);
    ASSERT_TRUE(e.feasible) << e.reason;
    EXPECT_NEAR(e.latency_s, 38.8e-6, 1e-12) << bytes;
    EXPECT_NEAR(e.transfer_s, 2 * bytes / 22.5e9, 1e-12) << bytes;
    EXPECT_EQ(e.bottleneck_level, 0) << bytes;
  }
  const auto big =
      estimate_collective_with(request(CollectiveOp::all_reduce, 16777216, 8, 2), t, Algo::tree, Protocol::ll);
  EXPECT_NEAR(big.time_s, 1530.11e-6, 0.01e-6);
  // Four nodes: 19.0 GB/s.
  const auto four =
      estimate_collective_with(request(CollectiveOp::all_reduce, 16777216, 8, 4), t, Algo::tree, Protocol::ll);
  ASSERT_TRUE(four.feasible) << four.reason;
  EXPECT_NEAR(four.transfer_s, 2 * 16777216.0 / 19.0e9, 1e-12);
}

// `gpuplan collective` says why a Tree/LL line crossing nodes runs below the links (64 KiB over
// 2 x 8 MI355X, where auto keeps Tree/LL).
TEST(CollectiveRcclNet, WhyNamesTheHostRate) {
  const CollectiveTopology t = rccl_net_topology("mi355x-8");
  CollectiveQuery q;
  q.request = request(CollectiveOp::all_reduce, 65536, 8, 2);
  const auto chosen = estimate_collective(q.request, t);
  ASSERT_EQ(chosen.algorithm, Algo::tree);
  ASSERT_EQ(chosen.protocol, Protocol::ll);
  const std::string why = collective_why(q, t, chosen, collective_candidates(q.request, t));
  EXPECT_NE(why.find("LL across nodes runs at the host's rate (22.5 GB/s per GPU"), std::string::npos) << why;
}

// AllToAll across 2 x 8 MI355X: every size runs Simple, LL is refused with its reason. Fixed cost
// of the Simple line: the grouped send/receive's 9.8 us + one xGMI Simple hop 2.7 us + one NET
// ring Simple hop 14.0 us = 26.5 us (+ the pipeline fill, at most the transfer).
//   latency-bound, 256 B (16 B a peer): 26.5 us + a few ns
//   bandwidth-bound, 1 GiB: the NICs carry 8/16 of each GPU's bytes: transfer >> 26.5 us
// Inside one node LL stays available (the P2P transport has LL buffers).
TEST(CollectiveRcclNet, PointToPointAcrossTheNetworkIsSimpleByHand) {
  const CollectiveTopology t = rccl_net_topology("mi355x-8");
  const auto ll = estimate_collective_with(request(CollectiveOp::all_to_all, 256, 8, 2), t, Algo::direct, Protocol::ll);
  EXPECT_FALSE(ll.feasible);
  EXPECT_NE(std::string(ll.reason).find("NCCL_ALLOC_P2P_NET_LL_BUFFERS"), std::string::npos) << ll.reason;
  const auto small = estimate_collective(request(CollectiveOp::all_to_all, 256, 8, 2), t);
  ASSERT_TRUE(small.feasible) << small.reason;
  EXPECT_EQ(small.algorithm, Algo::direct);
  EXPECT_EQ(small.protocol, Protocol::simple);
  const double fixed =
      t.p2p_latency_s + t.levels[0].ring_hop_s[kRcclNetSimple] + t.levels[1].ring_hop_s[kRcclNetSimple];
  EXPECT_NEAR(fixed, 9.8e-6 + 2.7e-6 + 14.0e-6, 1e-12);
  EXPECT_GE(small.latency_s, fixed - 1e-12);
  EXPECT_LE(small.latency_s, fixed + small.transfer_s + 1e-12);
  const auto big = estimate_collective(request(CollectiveOp::all_to_all, 1073741824, 8, 2), t);
  EXPECT_EQ(big.protocol, Protocol::simple);
  EXPECT_GT(big.transfer_s, 100 * fixed);
  const auto one_node = estimate_collective(request(CollectiveOp::all_to_all, 256, 8), t);
  EXPECT_EQ(one_node.protocol, Protocol::ll);
  // SendRecv between two nodes' GPUs: Simple too.
  EXPECT_FALSE(
      estimate_collective_with(request(CollectiveOp::send_recv, 1024, 1, 2), t, Algo::direct, Protocol::ll).feasible);
}

// RCCL's protocol ranges across nodes (docs/model/collectives.md "RCCL's protocol ranges across
// nodes"): for a multi-node AllReduce / AllGather / ReduceScatter RCCL sets the protocol by size
// (rcclUpdateCollectiveProtocol over its tuning model's llProtoRanges, ROCm/rocm-systems 03a89144:
// gfx942 AllReduce LL <= 524288, LL128 <= 4415057; gfx950 LL <= 262144, LL128 <= 70640910), not
// by its cost model. The ranges as data, per architecture.
TEST(CollectiveRcclNet, ProtocolRangesPerArchitecture) {
  const CollectiveTopology mi355x = rccl_net_topology("mi355x-8");
  ASSERT_TRUE(mi355x.net_protocol_ranges);
  EXPECT_DOUBLE_EQ(mi355x.net_ll_max_bytes[2], 262144);
  EXPECT_DOUBLE_EQ(mi355x.net_ll128_max_bytes[2], 70640910);
  const CollectiveTopology mi300x = rccl_net_topology("mi300x-8");
  ASSERT_TRUE(mi300x.net_protocol_ranges);
  EXPECT_DOUBLE_EQ(mi300x.net_ll_max_bytes[2], 524288);
  EXPECT_DOUBLE_EQ(mi300x.net_ll128_max_bytes[2], 4415057);
  // NCCL systems keep the cheapest protocol.
  EXPECT_FALSE(rccl_net_topology("dgx-h100").net_protocol_ranges);
}

// Latency-bound, 2 x 8 MI355X AllReduce of 128 KiB: 131072 B per rank is inside gfx950's LL range
// (0, 262144], so LL (the cost model alone took LL128). Tree/LL: 38.8 us fixed (12 + 2 x 7 x 1.2 +
// 2 x 5.0) + 2 x 131072 B / 22.5 GB/s (the host's LL rate) = 38.8 + 11.6508 = 50.4508 us.
// Bandwidth-bound, 2 x 8 MI300X AllReduce of 512 KiB: 524288 B is inside gfx942's LL range
// (0, 524288] (gfx950's would take LL128): 38.8 + 2 x 524288 / 22.5e9 = 38.8 + 46.6034 = 85.4034 us.
TEST(CollectiveRcclNet, ProtocolRangesAcrossNodesByHand) {
  const CollectiveTopology mi355x = rccl_net_topology("mi355x-8");
  const auto small = estimate_collective(request(CollectiveOp::all_reduce, 131072, 8, 2), mi355x);
  ASSERT_TRUE(small.feasible) << small.reason;
  EXPECT_EQ(small.algorithm, Algo::tree);
  EXPECT_EQ(small.protocol, Protocol::ll);
  EXPECT_NEAR(small.time_s, 50.4508e-6, 0.0001e-6);
  // Forced (NCCL_PROTO) LL128 stays available: RCCL honours the user's protocol.
  EXPECT_TRUE(
      estimate_collective_with(request(CollectiveOp::all_reduce, 131072, 8, 2), mi355x, Algo::tree, Protocol::ll128)
          .feasible);

  const CollectiveTopology mi300x = rccl_net_topology("mi300x-8");
  const auto big = estimate_collective(request(CollectiveOp::all_reduce, 524288, 8, 2), mi300x);
  ASSERT_TRUE(big.feasible) << big.reason;
  EXPECT_EQ(big.algorithm, Algo::tree);
  EXPECT_EQ(big.protocol, Protocol::ll);
  EXPECT_NEAR(big.latency_s, 38.8e-6, 1e-12);
  EXPECT_NEAR(big.time_s, 85.4034e-6, 0.0001e-6);
  EXPECT_GT(big.transfer_s, big.latency_s);
  // One byte past gfx942's LL128 maximum (4415057) on two nodes: Simple; on four nodes the
  // AllReduce's LL128 maximum is stretched x 3.8 (16777216.6): LL128.
  EXPECT_EQ(estimate_collective(request(CollectiveOp::all_reduce, 4415058, 8, 2), mi300x).protocol, Protocol::simple);
  EXPECT_EQ(estimate_collective(request(CollectiveOp::all_reduce, 4415058, 8, 4), mi300x).protocol, Protocol::ll128);
  // 256 MiB on MI355X: past 70640910, Simple. AllGather and ReduceScatter keep the cheapest
  // protocol (their rows are not applied: same_collective_time's contract).
  EXPECT_EQ(estimate_collective(request(CollectiveOp::all_reduce, 268435456, 8, 2), mi355x).protocol, Protocol::simple);
  const auto ag = request(CollectiveOp::all_gather, 15133422, 1, 3);
  auto rs = ag;
  rs.op = CollectiveOp::reduce_scatter;
  EXPECT_EQ(estimate_collective_time(ag, mi300x).time_s, estimate_collective_time(rs, mi300x).time_s);
}

// `gpuplan collective` names the rule, the architecture's table and its release.
TEST(CollectiveRcclNet, WhyNamesTheProtocolRange) {
  const CollectiveTopology t = rccl_net_topology("mi355x-8");
  CollectiveQuery q;
  q.request = request(CollectiveOp::all_reduce, 131072, 8, 2);
  const auto chosen = estimate_collective(q.request, t);
  const std::string why = collective_why(q, t, chosen, collective_candidates(q.request, t));
  EXPECT_NE(
      why.find(
          "across nodes RCCL sets the protocol by size, not by cost (rcclUpdateCollectiveProtocol, CDNA 4 (RCCL 2.27"),
      std::string::npos)
      << why;
  EXPECT_NE(why.find("Simple outside: LL"), std::string::npos) << why;
}

}  // namespace
}  // namespace gpuplan
