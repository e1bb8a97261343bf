// NCCL's point-to-point protocols (issue 32, eleventh round): AllToAll and SendRecv are grouped
// ncclSend/ncclRecv, whose protocol NCCL picks per peer and never LL128 — LL while the bytes to
// one peer are at most NCCL_P2P_LL_THRESHOLD (16 KiB), Simple above (src/enqueue.cc
// addP2pToPlan at v2.18.3-1, v2.21.5-1 and 5067397c). Each case by hand arithmetic on an
// idealised 8-GPU node (450 GB/s per GPU, no latency but the ones set here).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_p2p_channels.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;
using testing::test_node;
using Algo = CollectiveAlgorithm;

const Catalog kP2pEmptyCatalog{};

constexpr double kP2pTestLatencyS = 10e-6;  // p2p_us
constexpr double kP2pTestStepBytes = 1e6;   // the Simple pipeline step

CollectiveTopology p2p_test_topology() {
  CollectiveParams p = ideal_collective_params();
  p.p2p_latency_s = kP2pTestLatencyS;
  p.simple_step_bytes = kP2pTestStepBytes;
  return make_collective_topology(kP2pEmptyCatalog, test_node(), nullptr, p);
}

// 8 GPUs: an AllToAll of 128 KiB sends 16 KiB to each peer (LL allowed), one of 128 KiB + 8 B
// sends just over 16 KiB (LL refused); LL128 is refused at every size.
TEST(CollectiveP2pProtocol, AllToAllLlOnlyUpTo16KiBPerPeerNeverLl128) {
  const CollectiveTopology t = p2p_test_topology();
  const double at_threshold = 8 * 16384.0;
  const auto ll =
      estimate_collective_with(request(CollectiveOp::all_to_all, at_threshold, 8), t, Algo::direct, Protocol::ll);
  EXPECT_TRUE(ll.feasible) << ll.reason;
  const auto ll_over =
      estimate_collective_with(request(CollectiveOp::all_to_all, at_threshold + 8, 8), t, Algo::direct, Protocol::ll);
  EXPECT_FALSE(ll_over.feasible);
  EXPECT_NE(std::string(ll_over.reason).find("16 KiB"), std::string::npos) << ll_over.reason;
  for (const double bytes : {512.0, at_threshold, 64e6}) {
    const auto ll128 =
        estimate_collective_with(request(CollectiveOp::all_to_all, bytes, 8), t, Algo::direct, Protocol::ll128);
    EXPECT_FALSE(ll128.feasible) << bytes;
    EXPECT_NE(std::string(ll128.reason).find("never LL128"), std::string::npos) << ll128.reason;
  }
}

// Latency-bound: 8 KiB AllToAll (1 KiB per peer). The ideal LL line runs at the links' rate:
// latency = p2p = 10 us, transfer = 7/8 x 8,192 B / 450 GB/s = 15.9 ns; auto runs it (Simple
// adds the same latency and a fill of one more transfer).
// Bandwidth-bound: 2 MiB (256 KiB per peer) has no LL or LL128 line; auto runs Simple:
// transfer = 7/8 x 2,097,152 B / 450 GB/s = 4.078 us, latency = p2p 10 us + the fill
// min(1 MB / 450 GB/s = 2.222 us, transfer) = 12.222 us.
TEST(CollectiveP2pProtocol, AllToAllLatencyAndBandwidthBoundByHand) {
  const CollectiveTopology t = p2p_test_topology();
  const auto small = estimate_collective(request(CollectiveOp::all_to_all, 8192, 8), t);
  ASSERT_TRUE(small.feasible) << small.reason;
  EXPECT_EQ(small.algorithm, Algo::direct);
  EXPECT_EQ(small.protocol, Protocol::ll);
  EXPECT_NEAR(small.latency_s, 10e-6, 1e-12);
  EXPECT_NEAR(small.transfer_s, 7.0 / 8 * 8192 / 450e9, 1e-13);

  const double bytes = 2.0 * 1024 * 1024;
  const auto big = estimate_collective(request(CollectiveOp::all_to_all, bytes, 8), t);
  ASSERT_TRUE(big.feasible) << big.reason;
  EXPECT_EQ(big.protocol, Protocol::simple);
  const double transfer = 7.0 / 8 * bytes / 450e9;
  EXPECT_NEAR(big.transfer_s, transfer, 1e-12);
  EXPECT_NEAR(big.latency_s, 10e-6 + std::min(1e6 / 450e9, transfer), 1e-12);
}

// SendRecv between two GPUs: the whole buffer goes to the one peer, so LL up to 16 KiB exactly.
TEST(CollectiveP2pProtocol, SendRecvLlUpTo16KiB) {
  const CollectiveTopology t = p2p_test_topology();
  const auto at = estimate_collective_with(request(CollectiveOp::send_recv, 16384, 2), t, Algo::direct, Protocol::ll);
  EXPECT_TRUE(at.feasible) << at.reason;
  const auto over = estimate_collective_with(request(CollectiveOp::send_recv, 16385, 2), t, Algo::direct, Protocol::ll);
  EXPECT_FALSE(over.feasible);
  const auto ll128 =
      estimate_collective_with(request(CollectiveOp::send_recv, 1e6, 2), t, Algo::direct, Protocol::ll128);
  EXPECT_FALSE(ll128.feasible);
  const auto chosen = estimate_collective(request(CollectiveOp::send_recv, 1e6, 2), t);
  ASSERT_TRUE(chosen.feasible) << chosen.reason;
  EXPECT_EQ(chosen.protocol, Protocol::simple);
}

// AllToAll and SendRecv run NCCL's one send/receive kernel (enqueue.cc scheduleP2pTasksToPlan:
// ncclDevFuncId_P2p for every point-to-point task), so the point-to-point fraction slows both
// alike (issue 32, round 4). At 0.8 on the ideal node: SendRecv of 64 MB between 2 GPUs,
// transfer = 64e6 / (0.8 x 450 GB/s) = 177.78 us, latency = p2p 10 us + the fill 1 MB / 360 GB/s
// = 2.778 us; an AllToAll of 64 MB on 8 GPUs: transfer = 7/8 x 64e6 / 360 GB/s = 155.56 us.
// An AllGather (ring) keeps the links' rate.
TEST(CollectiveP2pProtocol, SendRecvAndAllToAllShareThePointToPointFraction) {
  CollectiveParams p = ideal_collective_params();
  p.p2p_latency_s = kP2pTestLatencyS;
  p.simple_step_bytes = kP2pTestStepBytes;
  p.alltoall_bw_fraction = 0.8;
  const CollectiveTopology t = make_collective_topology(kP2pEmptyCatalog, test_node(), nullptr, p);
  const auto sr = estimate_collective(request(CollectiveOp::send_recv, 64e6, 2), t);
  ASSERT_TRUE(sr.feasible) << sr.reason;
  EXPECT_NEAR(sr.transfer_s, 64e6 / 360e9, 1e-12);
  EXPECT_NEAR(sr.latency_s, 10e-6 + 1e6 / 360e9, 1e-12);
  const auto a2a = estimate_collective(request(CollectiveOp::all_to_all, 64e6, 8), t);
  ASSERT_TRUE(a2a.feasible) << a2a.reason;
  EXPECT_NEAR(a2a.transfer_s, 7.0 / 8 * 64e6 / 360e9, 1e-12);
  const auto ag = estimate_collective_with(request(CollectiveOp::all_gather, 64e6, 8), t, Algo::ring, Protocol::simple);
  ASSERT_TRUE(ag.feasible) << ag.reason;
  EXPECT_NEAR(ag.transfer_s, 7.0 / 8 * 64e6 / 450e9, 1e-12);
}

// NCCL starts each peer of a point-to-point group inside one node on nChannelsMin channels (32
// halved while nChannelsMin x nRanks > 32) and doubles them while a part exceeds
// 32 x NCCL_P2P_NVL_CHUNKSIZE = 16 MiB, up to 32 (src/enqueue.cc scheduleP2pTasksToPlan and
// addP2pToPlan, src/graph/paths.cc at v2.29.2-1); spread over c channels the kernel's loss
// shrinks to (1 - f) x c0 / c (issue 32, fourteenth session). At f = 0.8 on the ideal 450 GB/s
// node: an 8-GPU AllToAll of 512 MiB (64 MiB a peer on 4 channels: 16 MiB parts, not above) runs
// at 360 GB/s, 7/8 x 536870912 / 360e9 = 1304.9 us; one of 1 GiB on 8 channels at
// (1 - 0.2 x 4/8) x 450 = 405 GB/s, 7/8 x 1073741824 / 405e9 = 2319.8 us; one of 4 GiB on 32 at
// (1 - 0.2 x 4/32) x 450 = 438.75 GB/s; a 2-GPU SendRecv of 256 MiB (16 channels, 16 MiB parts)
// at 360 GB/s, one of 300 MB on 32 at 405 GB/s; across two domains the starting channels.
TEST(CollectiveP2pProtocol, NcclSpreadsALargePeerOverMoreChannels) {
  EXPECT_EQ(nccl_p2p_start_channels(2), 16);
  EXPECT_EQ(nccl_p2p_start_channels(4), 8);
  EXPECT_EQ(nccl_p2p_start_channels(8), 4);
  EXPECT_EQ(nccl_p2p_start_channels(64), 1);
  EXPECT_EQ(nccl_p2p_start_channels(72), 1);
  EXPECT_EQ(nccl_p2p_channels(CollectiveOp::all_to_all, 536870912.0, 8, 1), 4);
  EXPECT_EQ(nccl_p2p_channels(CollectiveOp::all_to_all, 1073741824.0, 8, 1), 8);
  EXPECT_EQ(nccl_p2p_channels(CollectiveOp::all_to_all, 4294967296.0, 8, 1), 32);
  EXPECT_EQ(nccl_p2p_channels(CollectiveOp::all_to_all, 68719476736.0, 8, 1), 32);
  EXPECT_EQ(nccl_p2p_channels(CollectiveOp::all_to_all, 1073741824.0, 64, 1), 1);  // 16 MiB a peer
  EXPECT_EQ(nccl_p2p_channels(CollectiveOp::all_to_all, 4294967296.0, 64, 1), 4);
  EXPECT_EQ(nccl_p2p_channels(CollectiveOp::all_to_all, 1073741824.0, 16, 2), 2);
  EXPECT_FALSE(nccl_p2p_channels_widened(CollectiveOp::all_to_all, 536870912.0, 8, 1));
  EXPECT_TRUE(nccl_p2p_channels_widened(CollectiveOp::all_to_all, 1073741824.0, 8, 1));
  EXPECT_FALSE(nccl_p2p_channels_widened(CollectiveOp::all_gather, 1073741824.0, 8, 1));
  EXPECT_DOUBLE_EQ(nccl_p2p_rate_share(0.8, CollectiveOp::all_to_all, 4294967296.0, 8, 1), 0.975);

  CollectiveParams p = ideal_collective_params();
  p.p2p_latency_s = kP2pTestLatencyS;
  p.simple_step_bytes = kP2pTestStepBytes;
  p.alltoall_bw_fraction = 0.8;
  const CollectiveTopology t = make_collective_topology(kP2pEmptyCatalog, test_node(), nullptr, p);
  const auto below = estimate_collective(request(CollectiveOp::all_to_all, 536870912.0, 8), t);
  ASSERT_TRUE(below.feasible) << below.reason;
  EXPECT_NEAR(below.transfer_s, 7.0 / 8 * 536870912.0 / 360e9, 1e-12);
  const auto above = estimate_collective(request(CollectiveOp::all_to_all, 1073741824.0, 8), t);
  ASSERT_TRUE(above.feasible) << above.reason;
  EXPECT_NEAR(above.transfer_s, 7.0 / 8 * 1073741824.0 / 405e9, 1e-12);
  const auto wide = estimate_collective(request(CollectiveOp::all_to_all, 4294967296.0, 8), t);
  ASSERT_TRUE(wide.feasible) << wide.reason;
  EXPECT_NEAR(wide.transfer_s, 7.0 / 8 * 4294967296.0 / 438.75e9, 1e-12);
  const auto sr_below = estimate_collective(request(CollectiveOp::send_recv, 268435456.0, 2), t);
  ASSERT_TRUE(sr_below.feasible) << sr_below.reason;
  EXPECT_NEAR(sr_below.transfer_s, 268435456.0 / 360e9, 1e-12);
  const auto sr_above = estimate_collective(request(CollectiveOp::send_recv, 300e6, 2), t);
  ASSERT_TRUE(sr_above.feasible) << sr_above.reason;
  EXPECT_NEAR(sr_above.transfer_s, 300e6 / 405e9, 1e-12);
}

// The channel rule is NCCL's scheduler's: an AllToAll run by DeepEP's or HybridEP's kernels (a MoE
// layer's flex or DualPipe dispatch, CollectiveRequest::nccl_p2p false) keeps the starting
// channels' fraction at any size. At f = 0.8 on the ideal 450 GB/s node an 8-GPU exchange of 1 GiB
// runs at 360 GB/s, 7/8 x 1073741824 / 360e9 = 2609.8 us (NCCL's, spread over 8 channels: 405
// GB/s, above).
TEST(CollectiveP2pProtocol, OtherLibrariesKernelsAreNotSpreadByNcclsScheduler) {
  CollectiveParams p = ideal_collective_params();
  p.p2p_latency_s = kP2pTestLatencyS;
  p.simple_step_bytes = kP2pTestStepBytes;
  p.alltoall_bw_fraction = 0.8;
  const CollectiveTopology t = make_collective_topology(kP2pEmptyCatalog, test_node(), nullptr, p);
  CollectiveRequest r = request(CollectiveOp::all_to_all, 1073741824.0, 8);
  r.nccl_p2p = false;
  const auto other = estimate_collective(r, t);
  ASSERT_TRUE(other.feasible) << other.reason;
  EXPECT_NEAR(other.transfer_s, 7.0 / 8 * 1073741824.0 / 360e9, 1e-12);
  r.nccl_p2p = true;
  const auto nccl = estimate_collective(r, t);
  ASSERT_TRUE(nccl.feasible) << nccl.reason;
  EXPECT_NEAR(nccl.transfer_s, 7.0 / 8 * 1073741824.0 / 405e9, 1e-12);
  CollectiveRequest deepep = r;
  deepep.nccl_p2p = false;
  EXPECT_FALSE(same_collective_time(r, deepep));  // the evaluator's last-answer cache keeps them apart
}

}  // namespace
}  // namespace gpuplan
