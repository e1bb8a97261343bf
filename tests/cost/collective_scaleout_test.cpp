// Collectives from one node to many racks with the shipped constants: NVLS's bus bandwidth and
// fixed cost against the NVLink domain size, NVLS_TREE across racks, and the inter-domain phase
// limited by the NICs that carry it (one per NCCL channel). Hand arithmetic in each comment.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;
using Algo = CollectiveAlgorithm;

const CollectiveParams& scaleout_params() { return default_collective_params(default_catalog()); }

CollectiveTopology nvl72() {
  const Catalog& c = default_catalog();
  return make_collective_topology(c, c.system("gb200-nvl72"), nullptr, scaleout_params());
}

// NCCL's tuner costs NVLS as a bus bandwidth (busBw = 2 x nvlsEfficiency x bwIntra, algBw = busBw
// x n / nSteps), so 8 and 72 GPUs of one NVL72 reach the same busbw: 900 GB/s x 0.931 = 838 GB/s,
// the 8xB200 figure, and 72 GPUs measure 835-839 (CoreWeave, shared/data/collectives.csv).
// Transfer = bytes x 2(g-1)/g / 838 GB/s.
TEST(CollectiveScaleOut, NvlsBusBandwidthDoesNotDependOnTheDomainSize) {
  const auto t = nvl72();
  const double bytes = 8 * 1024.0 * 1024 * 1024;
  for (int g : {8, 72}) {
    const auto e = estimate_collective_with(request(CollectiveOp::all_reduce, bytes, g), t, Algo::nvls, Protocol::simple);
    ASSERT_TRUE(e.feasible) << e.reason;
    EXPECT_NEAR(e.transfer_s, bytes * 2 * (g - 1) / g / (900e9 * 0.931), 1e-9) << g;
  }
  // Below 8 GPUs the egress binds instead: each GPU still sends the buffer once, at 900 x 0.532
  // = 479 GB/s (2(3)/4 / 838 = 1 / 559 GB/s would beat the link).
  const auto four = estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 4), t, Algo::nvls, Protocol::simple);
  EXPECT_NEAR(four.transfer_s, bytes / (900e9 * 0.532), 1e-9);
}

// NCCL charges NVLS 2 (g - 1) x intraLat on top of its base: the 72-GPU domain pays
// 2 x (72 - 8) x hop more than 8 GPUs of it.
TEST(CollectiveScaleOut, NvlsFixedCostGrowsWithTheGpusInTheDomain) {
  const auto t = nvl72();
  const auto at = [&](int g) {
    return estimate_collective_with(request(CollectiveOp::all_reduce, 1e9, g), t, Algo::nvls, Protocol::simple)
        .latency_s;
  };
  ASSERT_GT(t.nvls_hop_s, 0);
  // Both include the same one-step Simple fill (4.5 MB / 838 GB/s): only the hops differ.
  EXPECT_NEAR(at(72) - at(8), 2 * 64 * t.nvls_hop_s, 1e-12);
  // 72 GPUs: 0.3-0.6 ms, as one rack's 512 MiB-2 GiB rows imply (issue 15).
  EXPECT_GT(t.nvls_latency_s + 142 * t.nvls_hop_s, 0.3e-3);
  EXPECT_LT(t.nvls_latency_s + 142 * t.nvls_hop_s, 0.6e-3);
}

// 20 NVL72 racks: after NVLS inside each rack, each rack's reduced buffer leaves through one NIC
// per head (32 heads, NCCL_MAX_NVLS_ARITY, not 72 NICs), and NVLS_TREE over 20 racks carries, per
// NCCL's tuner (tuning.cc: interBw / 2 beyond two nodes, algBw = busBw x nNodes / (2 (nNodes -
// 1))), c = 2 x 2(19)/20 = 3.8 shards per head: per busy NIC 3.8 x bytes / 32 at the head's step
// rate, 64 KiB per 3 us = 21.85 GB/s (NCCL's 64 KiB NVLS_TREE chunk from 4 nodes up,
// cost/collective_nvls_tree.h), i.e. bytes / 184 GB/s (CoreWeave's 20 racks: 217 GB/s between 8
// and 16 GiB), slower than the rack's NVLS (bytes x 2(71/72) / 838 GB/s = bytes / 425 GB/s).
// The network is the bottleneck and the report names it. Two racks exchange once (one shard
// each way, 128 KiB chunks at 43.7 GB/s): bytes / 1,398 GB/s, and NVLS stays the bottleneck, as
// CoreWeave's 2-rack runs (810 GB/s busbw) show.
TEST(CollectiveScaleOut, TwentyNvl72RacksAreBoundByTheScaleOutNetwork) {
  const auto t = nvl72();
  ASSERT_EQ(t.nvls_tree_heads, 32);
  const double bytes = 8 * 1024.0 * 1024 * 1024;
  // The NVLS line (NVLS_TREE across racks); Tree's per-channel ceiling and auto's choice over
  // many racks: collective_multirack_test.cpp.
  const auto twenty = estimate_collective_with(request(CollectiveOp::all_reduce, bytes, 72, 20), t, Algo::nvls,
                                               Protocol::simple);
  ASSERT_TRUE(twenty.feasible) << twenty.reason;
  EXPECT_EQ(twenty.bottleneck_level, 1);
  EXPECT_NE(t.level_names[1].find("network"), std::string::npos);
  EXPECT_NEAR(twenty.level_bytes[1], 3.8 * bytes / 32, 1);
  EXPECT_NEAR(twenty.transfer_s, 3.8 * bytes / 32 / (65536 / 3e-6), 1e-9);

  const auto two = estimate_collective(request(CollectiveOp::all_reduce, bytes, 72, 2), t);
  EXPECT_EQ(two.algorithm, Algo::nvls);
  EXPECT_EQ(two.bottleneck_level, 0);
  EXPECT_NEAR(two.level_bytes[1], bytes / 32, 1);
  EXPECT_GT(two.busbw_bytes_per_s, twenty.busbw_bytes_per_s);
}

// Property: adding domains never speeds a collective up (algbw never rises), and from three
// domains on the per-GPU bus bandwidth never exceeds what the NICs that carry the inter-domain
// phase allow: one NIC's line rate x the NICs used per domain x the algorithm's factor (ring:
// 1 on busbw; tree: 1 / (2(m-1)/m) on algbw, the double binary tree's share per domain; NVLS_TREE:
// at most 1/2 on algbw, two shards per head; then nccl-tests' 2(n-1)/n).
// Checked for NVL72 racks and 8-GPU nodes, at every size.
TEST(CollectiveScaleOut, AddingDomainsNeverBeatsTheNicLineRate) {
  const Catalog& c = default_catalog();
  for (const char* system : {"gb200-nvl72", "dgx-h100"}) {
    const System& s = c.system(system);
    const auto t = make_collective_topology(c, s, nullptr, scaleout_params());
    const double nic_line = s.scaleout_bw_uni_bytes_per_s_per_gpu();
    for (double bytes : {1e6, 64e6, 1e9, 16e9}) {
      double previous = HUGE_VAL;  // algbw: busbw's 2(n-1)/n itself grows with n
      for (int m = 2; m <= 32; ++m) {
        const auto e = estimate_collective(request(CollectiveOp::all_reduce, bytes, s.gpus, m), t);
        ASSERT_TRUE(e.feasible) << system << " " << m << " " << e.reason;
        EXPECT_LE(e.algbw_bytes_per_s, previous * (1 + 1e-9)) << system << " " << bytes << " B, " << m << " domains";
        previous = e.algbw_bytes_per_s;
        if (m < 3) continue;
        const int channels = e.algorithm == Algo::nvls ? t.nvls_tree_heads : t.net_channels;
        const double nics = s.gpus * t.nics_per_gpu;
        const double used = channels > 0 && channels < nics ? channels : nics;
        const double n = s.gpus * m;
        // ring: each busy NIC carries the wire volume / used NICs (c = 1 on busbw);
        // tree: 2(m-1)/m x bytes / used NICs; NVLS_TREE: at least 2 x bytes / used NICs.
        const double nic_bw = nic_line / t.nics_per_gpu;  // one NIC
        const double share = e.algorithm == Algo::tree ? 2.0 * (m - 1) / m : 2.0;
        const double bound = e.algorithm == Algo::ring ? nic_bw * used : nic_bw * used / share * 2 * (n - 1) / n;
        EXPECT_LE(e.busbw_bytes_per_s, bound * (1 + 1e-9)) << system << " " << bytes << " B, " << m << " domains, "
                                                           << algorithm_name(e.algorithm);
      }
    }
  }
}

// NCCL runs NVLS inside a domain only: across domains without SHARP it is NVLS_TREE (a tree over
// the network), and a group with one GPU per domain never uses NVLS at all.
TEST(CollectiveScaleOut, NvlsIsNeverTheInterDomainAlgorithmWithoutSharp) {
  const auto t = nvl72();
  ASSERT_FALSE(t.sharp());
  const auto e = estimate_collective_with(request(CollectiveOp::all_reduce, 1e9, 72, 4), t, Algo::nvls, Protocol::simple);
  ASSERT_TRUE(e.feasible);
  EXPECT_FALSE(e.level_bytes[1] <= 0);
  // Inter-domain latency is a tree: 2 ceil(log2 M) network tree hops (4 for M = 4, 6 for M = 8),
  // each Simple step also filling one chunk at the head NIC's shared rate, 1/c of it with c =
  // 2 x 2(M-1)/M shards per head (3 for M = 4, 3.5 for M = 8): 6 x 3.5 - 4 x 3 = 9 chunk times
  // more; a ring would add 2(8-4) hops.
  const auto e8 = estimate_collective_with(request(CollectiveOp::all_reduce, 1e9, 72, 8), t, Algo::nvls, Protocol::simple);
  EXPECT_NEAR(e8.latency_s - e.latency_s,
              2 * t.levels[1].tree_hop_s[2] + 9 * scaleout_params().simple_step_bytes / e8.level_bw_bytes_per_s[1], 1e-12);
  EXPECT_FALSE(estimate_collective_with(request(CollectiveOp::all_reduce, 1e9, 1, 4), t, Algo::nvls, Protocol::simple)
                   .feasible);
}

// RCCL over AMD's xGMI mesh (no switch): a GPU reaches each peer over one 64 GB/s link, 48 GB/s
// usable (AMD), so 2 GPUs of an MI300X get 48 GB/s and 8 get 7 x 48 = 336 GB/s of ring
// bandwidth: busbw 336 vs 48, 7x at 8 GiB, where stas00 measured a 2-GPU AllReduce 6.5x slower
// than an 8-GPU one (shared/data/hardware-notes.md, AMD).
TEST(CollectiveScaleOut, XgmiMeshGivesTwoGpusOneLink) {
  const Catalog& c = default_catalog();
  const auto t = make_collective_topology(c, c.system("mi300x-8"), nullptr, scaleout_params());
  ASSERT_EQ(t.scaleup, ScaleupKind::mesh);
  const double bytes = 8 * 1024.0 * 1024 * 1024;
  const auto two = estimate_collective(request(CollectiveOp::all_reduce, bytes, 2), t);
  const auto eight = estimate_collective(request(CollectiveOp::all_reduce, bytes, 8), t);
  EXPECT_NEAR(two.level_bw_bytes_per_s[0], 64e9 * 0.75, 1e3);
  EXPECT_NEAR(eight.level_bw_bytes_per_s[0], 7 * 64e9 * 0.75, 1e3);
  EXPECT_NEAR(eight.busbw_bytes_per_s / two.busbw_bytes_per_s, 6.5, 6.5 * 0.10);
}

}  // namespace
}  // namespace gpuplan
