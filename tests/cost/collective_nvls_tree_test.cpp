// Issue 32, sixteenth session: NVLS_TREE's network chunk across many racks. NCCL runs NVLS_TREE
// with 32 heads on an NVL72 rack (one GPU per NIC, at most NCCL_MAX_NVLS_ARITY), in chunks of
// NCCL_NVLS_CHUNKSIZE (128 KiB) cut to 64 KiB from 4 nodes up and smaller for small buffers
// (src/enqueue.cc calcCollChunking), and each chunk a head sends or receives across the network
// is a Simple net step, which NCCL's tuner costs at 3 us (getNetOverhead 1 us x 3): a head NIC
// then moves at most chunk / 3 us each way (cost/collective_nvls_tree.h). Hand arithmetic in each
// test; the constants are NCCL's, none fitted.
#include "cost/collective_nvls_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "calibration/collective_question.h"
#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_test_util.h"
#include "report/collective_report.h"

namespace gpuplan {
namespace {

using testing::request;

constexpr double kKiB = 1024;
constexpr double kGiB = 1024.0 * 1024 * 1024;

CollectiveTopology nvl72_racks() {
  const Catalog& c = default_catalog();
  return make_collective_topology(c, c.system("gb200-nvl72"), nullptr, default_collective_params(c));
}

// NCCL's chunk rule with 32 NVLS channels x 32 heads = 1,024 concurrent ops:
// - 3 racks, 8 GiB: 128 KiB (fewer than 4 nodes: no cap; 8 GiB >= 16 x 1,024 x 128 KiB = 2 GiB).
// - 3 racks, 256 MiB: below 4 x 1,024 x 128 KiB = 512 MiB, so 64 KiB.
// - 20 racks, 16 GiB: the 4-node cap, 64 KiB (16 GiB >= 1 x 1,024 x 64 KiB = 64 MiB).
// - 20 racks, 32 MiB: below 64 MiB, so 32 KiB.
// - 16 channels (Hopper) x 8 heads = 128 ops, 2 nodes, 32 MiB: 32 MiB >= 4 x 128 x 128 KiB = 64
//   MiB? No: 64 KiB; 8 MiB < 1 x 128 x 64 KiB = 8 MiB? No (equal): stays 64 KiB.
TEST(CollectiveNvlsTree, NcclChunkRuleByHand) {
  EXPECT_EQ(nvls_tree_chunk_bytes(8 * kGiB, 3, 32, 32, 128 * kKiB, 64 * kKiB, 4), 128 * kKiB);
  EXPECT_EQ(nvls_tree_chunk_bytes(256 * kKiB * kKiB, 3, 32, 32, 128 * kKiB, 64 * kKiB, 4), 64 * kKiB);
  EXPECT_EQ(nvls_tree_chunk_bytes(16 * kGiB, 20, 32, 32, 128 * kKiB, 64 * kKiB, 4), 64 * kKiB);
  EXPECT_EQ(nvls_tree_chunk_bytes(32 * kKiB * kKiB, 20, 32, 32, 128 * kKiB, 64 * kKiB, 4), 32 * kKiB);
  EXPECT_EQ(nvls_tree_chunk_bytes(32 * kKiB * kKiB, 2, 16, 8, 128 * kKiB, 64 * kKiB, 4), 64 * kKiB);
  EXPECT_EQ(nvls_tree_chunk_bytes(8 * kKiB * kKiB, 2, 16, 8, 128 * kKiB, 64 * kKiB, 4), 64 * kKiB);
  EXPECT_EQ(nvls_tree_chunk_bytes(8 * kGiB, 20, 32, 32, 0, 64 * kKiB, 4), 0);  // no rule
  // 64 KiB / 3 us = 21.85 GB/s; 128 KiB / 3 us = 43.69 GB/s.
  EXPECT_NEAR(net_step_rate_bytes_per_s(64 * kKiB, 3e-6), 21.845e9, 1e6);
  EXPECT_NEAR(net_step_rate_bytes_per_s(128 * kKiB, 3e-6), 43.691e9, 1e6);
  EXPECT_EQ(net_step_rate_bytes_per_s(64 * kKiB, 0), 0);
}

// The catalog's GB200 NVL72 carries NCCL's figures: 32 heads, 32 NVLS channels, 3 us a step.
TEST(CollectiveNvlsTree, CatalogCarriesNcclFigures) {
  const auto t = nvl72_racks();
  EXPECT_EQ(t.nvls_tree_heads, 32);
  EXPECT_EQ(t.nvls_channels, 32);
  EXPECT_DOUBLE_EQ(t.nvls_chunk_bytes, 128 * kKiB);
  EXPECT_DOUBLE_EQ(t.nvls_tree_max_chunk_bytes, 64 * kKiB);
  EXPECT_EQ(t.nvls_tree_max_chunk_min_domains, 4);
  EXPECT_DOUBLE_EQ(t.net_step_overhead_s, 3e-6);
}

// Bandwidth-bound: 20 racks, 16 GiB, NVLS_TREE forced. Each head NIC carries c = 2 x 2(N-1)/N =
// 3.8 shards of 16 GiB / 32 heads (72 GPUs' NICs, 32 of them heads: 16 GiB / 72 x 72/32) at
// min(50 GB/s x 0.95 (the C2C transport), 64 KiB / 3 us = 21.85 GB/s) = 21.85 GB/s:
// 3.8 x 536.9 MB / 21.85 GB/s = 93.389 ms, above the rack's NVLS part (16 GiB at ~420 GB/s,
// 41 ms), so the network level is the bottleneck. Three racks at 8 GiB: 128 KiB, 43.69 GB/s
// (below 47.5), c = 2.67: 2.67 x 268.4 MB / 43.69 GB/s = 16.4 ms, below the NVLS part (~20 ms).
TEST(CollectiveNvlsTree, TwentyRacksRunAtTheHeadsStepRateByHand) {
  const auto t = nvl72_racks();
  const auto e = estimate_collective_with(request(CollectiveOp::all_reduce, 16 * kGiB, 72, 20), t,
                                          CollectiveAlgorithm::nvls, Protocol::simple);
  ASSERT_TRUE(e.feasible) << e.reason;
  const double cap = 64 * kKiB / 3e-6;
  EXPECT_DOUBLE_EQ(e.nvls_tree_chunk_bytes, 64 * kKiB);
  EXPECT_NEAR(e.net_step_cap_bytes_per_s, cap, 1);
  EXPECT_NEAR(e.level_bw_bytes_per_s[1], cap, 1);
  const double c = 2.0 * 2.0 * 19 / 20;
  EXPECT_NEAR(e.level_bytes[1], c * 16 * kGiB / 32, 1);
  EXPECT_NEAR(e.level_time_s[1] * 1e3, 93.389, 0.001);
  EXPECT_EQ(e.bottleneck_level, 1);
  EXPECT_NEAR(e.transfer_s, e.level_time_s[1], 1e-12);
  // The fixed part: NVLS in the rack (35 + 2 x 71 x 3.8 us), 10 NET tree hops, and the Simple
  // fill: one step at NVLS's rate in the rack, then 10 tree steps at the head's shared rate
  // 21.85 GB/s / 3.8 (10 x 4.66 MB x 3.8 / 21.85 GB/s = 8.1 ms, below the 93.4 ms transfer).
  const int simple = static_cast<int>(Protocol::simple);
  const double inside = t.nvls_latency_s + 2 * 71 * t.nvls_hop_s;
  const double fill = t.simple_step_bytes / e.level_bw_bytes_per_s[0] + 10 * t.simple_step_bytes * c / cap;
  EXPECT_NEAR(e.latency_s, t.net_base_s + inside + 10 * t.levels[1].tree_hop_s[simple] + fill, 1e-12);

  const auto three = estimate_collective_with(request(CollectiveOp::all_reduce, 8 * kGiB, 72, 3), t,
                                              CollectiveAlgorithm::nvls, Protocol::simple);
  ASSERT_TRUE(three.feasible) << three.reason;
  EXPECT_DOUBLE_EQ(three.nvls_tree_chunk_bytes, 128 * kKiB);
  EXPECT_NEAR(three.level_bw_bytes_per_s[1], 128 * kKiB / 3e-6, 1);
  EXPECT_NEAR(three.level_time_s[1] * 1e3, 2.0 * 2.0 * 2 / 3 * 8 * kGiB / 32 / (128 * kKiB / 3e-6) * 1e3, 1e-6);
  EXPECT_EQ(three.bottleneck_level, 0);  // the rack's NVLS part binds at 3 racks, as OCI measures
  // Two racks: c = 1 and the step rate (43.69 GB/s) is below the NIC's 47.5: the cap binds there
  // too, 16 GiB / 32 / 43.69 GB/s = 12.3 ms, still under the NVLS part.
  const auto two = estimate_collective_with(request(CollectiveOp::all_reduce, 8 * kGiB, 72, 2), t,
                                            CollectiveAlgorithm::nvls, Protocol::simple);
  EXPECT_EQ(two.bottleneck_level, 0);
}

// Latency-bound: 20 racks, 1 MiB, NVLS_TREE forced. The chunk is 32 KiB (1 MiB < 1,024 x 64 KiB),
// the step rate 32 KiB / 3 us = 10.92 GB/s, the network transfer 3.8 x 1 MiB / 32 / 10.92 GB/s =
// 11.4 us; the fixed part is NVLS's inside the rack (35 + 2 x 71 x 3.8 us = 574.6 us) + 10 NET
// tree hops + the Simple fill, capped at the transfer (the fill of 4.66 MB steps is far above
// it): time = 574.6 us + 10 hops + 11.4 us + 11.4 us, the rack's NVLS cost dominating.
TEST(CollectiveNvlsTree, TwentyRacksSmallBufferIsLatencyBoundByHand) {
  const auto t = nvl72_racks();
  const double bytes = 1024 * kKiB;
  const auto e = estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 72, 20), t,
                                          CollectiveAlgorithm::nvls, Protocol::simple);
  ASSERT_TRUE(e.feasible) << e.reason;
  EXPECT_DOUBLE_EQ(e.nvls_tree_chunk_bytes, 32 * kKiB);
  const double cap = 32 * kKiB / 3e-6;
  EXPECT_NEAR(e.net_step_cap_bytes_per_s, cap, 1);
  const double net = 3.8 * bytes / 32 / cap;
  EXPECT_NEAR(e.level_time_s[1], net, 1e-12);
  const double inside = t.nvls_latency_s + 2 * 71 * t.nvls_hop_s;
  const int simple = static_cast<int>(Protocol::simple);
  EXPECT_NEAR(e.latency_s, t.net_base_s + inside + 10 * t.levels[1].tree_hop_s[simple] + e.transfer_s, 1e-12);
  EXPECT_GT(e.latency_s, 20 * e.transfer_s);
}

// No cap where NVLS_TREE does not run across domains: one rack, or a ring.
TEST(CollectiveNvlsTree, OnlyNvlsTreeAcrossDomains) {
  const auto t = nvl72_racks();
  const auto one = estimate_collective_with(request(CollectiveOp::all_reduce, 8 * kGiB, 72, 1), t,
                                            CollectiveAlgorithm::nvls, Protocol::simple);
  EXPECT_EQ(one.net_step_cap_bytes_per_s, 0);
  const auto ring = estimate_collective_with(request(CollectiveOp::all_reduce, 8 * kGiB, 72, 20), t,
                                             CollectiveAlgorithm::ring, Protocol::simple);
  EXPECT_EQ(ring.net_step_cap_bytes_per_s, 0);
}

// `gpuplan collective` names the term: the chunk, the step cost and the cap, in text and JSON.
TEST(CollectiveNvlsTree, BreakdownNamesTheChunkAndTheStepRate) {
  CollectiveCommandRequest r;
  r.op = "allreduce";
  r.bytes = "16GiB";
  r.gpus = 1440;
  r.nodes = 20;
  r.system = "gb200-nvl72";
  r.algorithm = "nvls";
  const CollectiveAnswer a = answer_collective(default_catalog(), r);
  const nlohmann::ordered_json j = to_json(a);
  EXPECT_DOUBLE_EQ(j["nvls_tree_chunk_bytes"].get<double>(), 64 * kKiB);
  EXPECT_DOUBLE_EQ(j["net_step_overhead_s"].get<double>(), 3e-6);
  EXPECT_NEAR(j["net_step_cap_bytes_per_s"].get<double>(), 64 * kKiB / 3e-6, 1);
  const std::string text = to_text(a);
  EXPECT_NE(text.find("net step"), std::string::npos) << text;
  EXPECT_NE(text.find("(binds)"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpuplan
