// NCCL's small-message channel narrowing for ring LL (enqueue.cc: channels drop while
// nBytes < channels x threads x threadThreshold; ring LL: 512 threads x 8 B x nRanks), by hand.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;
using testing::test_node;

// 8 ranks x 4096 B = 32 KiB fills one channel; 16 channels fill at 512 KiB.
TEST(CollectiveLlChannels, ShareByHand) {
  EXPECT_DOUBLE_EQ(ll_channel_share(8192, 8, 16, 4096), 1.0 / 16);       // 0.25 channel -> 1 of 16
  EXPECT_DOUBLE_EQ(ll_channel_share(32768, 8, 16, 4096), 1.0 / 16);      // exactly one channel
  EXPECT_DOUBLE_EQ(ll_channel_share(131072, 8, 16, 4096), 4.0 / 16);     // 128 KiB / 32 KiB = 4
  EXPECT_DOUBLE_EQ(ll_channel_share(1048576, 8, 16, 4096), 1.0);         // 32 -> all 16
  EXPECT_DOUBLE_EQ(ll_channel_share(65536, 4, 16, 4096), 4.0 / 16);      // 4 ranks: 16 KiB per channel
  EXPECT_DOUBLE_EQ(ll_channel_share(512, 8, 0, 4096), 1.0);              // no narrowing configured
}

// Between one channel's fill and all channels' the ring LL transfer is flat: on an ideal
// 450 GB/s node (efficiency 1, LL at full rate) AllGather of B moves 7/8 B per GPU on B / 32 KiB
// of 16 channels: 7/8 x 32,768 x 16 / 450e9 = 458,752 / 450e9 = 1.01945 us at 64 KiB and at
// 256 KiB alike; at 1 MiB every channel runs: 7/8 x 1,048,576 / 450e9 = 2.03904 us.
TEST(CollectiveLlChannels, RingLlTransferIsFlatBetweenOneAndAllChannels) {
  CollectiveParams p = ideal_collective_params();
  p.ll_channels = 16;
  p.ll_channel_fill_bytes_per_rank = 4096;
  const Catalog empty{};
  const auto t = make_collective_topology(empty, test_node(), nullptr, p);
  const auto at = [&](double bytes) {
    return estimate_collective_with(request(CollectiveOp::all_gather, bytes, 8), t, CollectiveAlgorithm::ring,
                                    Protocol::ll);
  };
  EXPECT_NEAR(at(65536).transfer_s, 458752 / 450e9, 1e-15);
  EXPECT_NEAR(at(262144).transfer_s, 458752 / 450e9, 1e-15);
  EXPECT_NEAR(at(1048576).transfer_s, 917504 / 450e9, 1e-15);
  // LL128 and Simple, and the ideal parameters without narrowing, are untouched.
  const auto ll128 = estimate_collective_with(request(CollectiveOp::all_gather, 65536, 8), t,
                                              CollectiveAlgorithm::ring, Protocol::ll128);
  EXPECT_NEAR(ll128.transfer_s, 57344 / 450e9, 1e-15);
  const auto plain = make_collective_topology(empty, test_node(), nullptr, ideal_collective_params());
  EXPECT_NEAR(estimate_collective_with(request(CollectiveOp::all_gather, 65536, 8), plain, CollectiveAlgorithm::ring,
                                       Protocol::ll)
                  .transfer_s,
              57344 / 450e9, 1e-15);
}

// The shipped constants on 8 x H100, AllGather of 32 KiB (nccl-tests 13.1 us) and 128 KiB
// (13.6 us): 6.6 + 7 x 0.49 = 10.03 us fixed, plus 7/8 x 32,768 x 16 B at NCCL's Hopper LL
// ceiling, 141 GB/s (below half the ring rate, 450e9 x 0.822 / 2 = 185 GB/s) = 3.25 us,
// 13.28 us at both sizes (before the narrowing: 10.99 and 11.56 us; with the fitted LL
// fraction 0.405 of 2026-11-24, 13.09 us).
TEST(CollectiveLlChannels, ShippedH100AllGatherPlateau) {
  const Catalog& c = default_catalog();
  const CollectiveParams& p = default_collective_params(c);
  EXPECT_EQ(p.ll_channels, 16);
  EXPECT_DOUBLE_EQ(p.ll_channel_fill_bytes_per_rank, 4096);
  const auto t = make_collective_topology(c, c.system("dgx-h100"), nullptr, p);
  const double expected_us = 6.6 + 7 * 0.49 + 28672.0 * 16 / 141e9 * 1e6;
  for (double bytes : {32768.0, 131072.0}) {
    const auto e = estimate_collective(request(CollectiveOp::all_gather, bytes, 8), t);
    EXPECT_EQ(e.protocol, Protocol::ll) << bytes;
    EXPECT_NEAR(e.time_s * 1e6, expected_us, 1e-6) << bytes;
  }
  EXPECT_NEAR(expected_us, 13.28, 0.01);
}

}  // namespace
}  // namespace gpuplan
