// NCCL's send/receive kernel copies each peer's part on one CTA per channel, so inside one domain
// a GPU's sends run no faster than its send channels x one channel's rate (issue 32, fifteenth
// session; cost/collective_p2p_channels.h, docs/model/collectives.md "NCCL's point-to-point
// channel rate"). Each case by hand arithmetic on an idealised 8-GPU node (450 GB/s per GPU, no
// latency but the ones set here) with a channel rate of 20 GB/s set on the topology.
#include <gtest/gtest.h>

#include <string>

#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_p2p_channels.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;
using testing::test_node;

const Catalog kChannelRateEmptyCatalog{};

CollectiveTopology channel_rate_topology(double channel_bw) {
  CollectiveParams p = ideal_collective_params();
  p.p2p_latency_s = 10e-6;
  p.simple_step_bytes = 1e6;
  p.alltoall_bw_fraction = 0.8;
  CollectiveTopology t = make_collective_topology(kChannelRateEmptyCatalog, test_node(), nullptr, p);
  t.p2p_channel_bw_bytes_per_s = channel_bw;
  return t;
}

// The channels that carry one GPU's sends: a SendRecv ring's one peer on NCCL's channels a peer
// (8 ranks: 4, spread to 8 past 16 MiB parts, 32 at 512 MiB), an AllToAll's n - 1 peers, at most 32.
TEST(CollectiveP2pChannelRate, SendChannelsArePeersTimesChannelsAPeer) {
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::send_recv, 33554432.0, 8, 1), 4);
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::send_recv, 67108864.0, 8, 1), 4);
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::send_recv, 134217728.0, 8, 1), 8);
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::send_recv, 268435456.0, 8, 1), 16);
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::send_recv, 536870912.0, 8, 1), 32);
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::send_recv, 33554432.0, 4, 1), 8);
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::send_recv, 1e6, 2, 1), 16);
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::all_to_all, 536870912.0, 8, 1), 28);   // 7 peers x 4
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::all_to_all, 536870912.0, 4, 1), 24);   // 3 peers x 8
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::all_to_all, 4294967296.0, 8, 1), 32);  // 7 x 32, NCCL's 32
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::send_recv, 1e6, 2, 2), 0);             // across domains: the NICs
  EXPECT_EQ(nccl_p2p_send_channels(CollectiveOp::all_gather, 1e6, 8, 1), 0);
  EXPECT_DOUBLE_EQ(nccl_p2p_channel_cap(20e9, CollectiveOp::send_recv, 33554432.0, 8, 1), 80e9);
  EXPECT_DOUBLE_EQ(nccl_p2p_channel_cap(0, CollectiveOp::send_recv, 33554432.0, 8, 1), 0);
}

// An 8-rank SendRecv ring of 32 MiB: each GPU sends 32 MiB to the next on 4 channels at 20 GB/s,
// 80 GB/s, below the links' 0.8 x 450 = 360 GB/s: transfer 33,554,432 / 80e9 = 419.43 us; the
// latency keeps the links' pipeline fill: p2p 10 us + 1 MB / 360 GB/s = 2.778 us. At 512 MiB (32
// channels, 640 GB/s) the links bind: (1 - 0.2 x 4/32) x 450 = 438.75 GB/s.
TEST(CollectiveP2pChannelRate, FewChannelsBindBelowTheLinks) {
  const CollectiveTopology t = channel_rate_topology(20e9);
  const auto small = estimate_collective(request(CollectiveOp::send_recv, 33554432.0, 8), t);
  ASSERT_TRUE(small.feasible) << small.reason;
  EXPECT_EQ(small.algorithm, CollectiveAlgorithm::direct);
  EXPECT_NEAR(small.transfer_s, 33554432.0 / 80e9, 1e-12);
  EXPECT_NEAR(small.latency_s, 10e-6 + 1e6 / 360e9, 1e-12);
  EXPECT_EQ(small.p2p_channels, 4);
  EXPECT_DOUBLE_EQ(small.p2p_channel_cap_bytes_per_s, 80e9);
  EXPECT_DOUBLE_EQ(small.level_bw_bytes_per_s[0], 80e9);
  EXPECT_DOUBLE_EQ(small.busbw_bytes_per_s, small.algbw_bytes_per_s);  // SendRecv: x 1

  const auto large = estimate_collective(request(CollectiveOp::send_recv, 536870912.0, 8), t);
  ASSERT_TRUE(large.feasible) << large.reason;
  EXPECT_EQ(large.p2p_channels, 32);
  EXPECT_NEAR(large.transfer_s, 536870912.0 / 438.75e9, 1e-12);
  EXPECT_DOUBLE_EQ(large.level_bw_bytes_per_s[0], 438.75e9);

  // The same 32 MiB between 2 GPUs runs on 16 channels, 320 GB/s, still below 360.
  const auto pair = estimate_collective(request(CollectiveOp::send_recv, 33554432.0, 2), t);
  ASSERT_TRUE(pair.feasible) << pair.reason;
  EXPECT_NEAR(pair.transfer_s, 33554432.0 / 320e9, 1e-12);

  // An 8-GPU AllToAll of 512 MiB sends on 28 channels, 560 GB/s: the links' 360 bind.
  const auto a2a = estimate_collective(request(CollectiveOp::all_to_all, 536870912.0, 8), t);
  ASSERT_TRUE(a2a.feasible) << a2a.reason;
  EXPECT_NEAR(a2a.transfer_s, 7.0 / 8 * 536870912.0 / 360e9, 1e-12);
}

// Where NCCL's kernel does not run the bytes, or the group leaves the domain, no channel bound:
// another library's kernels (nccl_p2p false), 2 domains, no per-channel rate (the idealised set).
TEST(CollectiveP2pChannelRate, OnlyNcclsKernelInsideOneDomain) {
  const CollectiveTopology t = channel_rate_topology(20e9);
  CollectiveRequest r = request(CollectiveOp::send_recv, 33554432.0, 8);
  r.nccl_p2p = false;
  const auto other = estimate_collective(r, t);
  ASSERT_TRUE(other.feasible) << other.reason;
  EXPECT_NEAR(other.transfer_s, 33554432.0 / 360e9, 1e-12);
  EXPECT_EQ(other.p2p_channels, 0);
  const auto none = estimate_collective(request(CollectiveOp::send_recv, 33554432.0, 8), channel_rate_topology(0));
  ASSERT_TRUE(none.feasible) << none.reason;
  EXPECT_NEAR(none.transfer_s, 33554432.0 / 360e9, 1e-12);
  const auto across = estimate_collective(request(CollectiveOp::send_recv, 33554432.0, 1, 2), t);
  ASSERT_TRUE(across.feasible) << across.reason;
  EXPECT_EQ(across.p2p_channels, 0);
  const auto lone = estimate_collective(request(CollectiveOp::send_recv, 1e6, 1), t);
  EXPECT_FALSE(lone.feasible);
}

// The shipped rate: bytes per SM cycle x the GPU's boost clock, for NCCL's systems; RCCL's xGMI
// mesh has none.
TEST(CollectiveP2pChannelRate, ShippedRateIsBytesPerCycleAtTheBoostClock) {
  const Catalog& cat = default_catalog();
  const CollectiveParams& p = default_collective_params(cat);
  ASSERT_GT(p.p2p_channel_bytes_per_clock, 0);
  const CollectiveTopology h100 = make_collective_topology(cat, cat.system("dgx-h100"), nullptr, p);
  EXPECT_NEAR(h100.p2p_channel_bw_bytes_per_s, p.p2p_channel_bytes_per_clock * 1980e6, 1.0);
  const CollectiveTopology a100 = make_collective_topology(cat, cat.system("dgx-a100"), nullptr, p);
  EXPECT_NEAR(a100.p2p_channel_bw_bytes_per_s, p.p2p_channel_bytes_per_clock * 1410e6, 1.0);
  const CollectiveTopology mi300x = make_collective_topology(cat, cat.system("mi300x-8"), nullptr, p);
  EXPECT_EQ(mi300x.p2p_channel_bw_bytes_per_s, 0);
  const CollectiveTopology ideal =
      make_collective_topology(cat, cat.system("dgx-h100"), nullptr, ideal_collective_params());
  EXPECT_EQ(ideal.p2p_channel_bw_bytes_per_s, 0);
}

}  // namespace
}  // namespace gpuplan
