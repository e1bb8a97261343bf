// A GPU generation's fixed cost per collective as data (`fixed_cost_ratio` on a [[link]] entry of
// data/fitted/collectives/nccl.toml; issue 32, sixth round). NCCL's tuner has one set of NVLink
// latencies for every GPU generation; B200's measured minimum AllReduce latency is 1.3 x
// Hopper's (NVIDIA/nccl#1940). The ratio multiplies the library's base latency and the
// scale-up hops; the grouped send/receive cost (which runs at the GPU's clock instead, last
// test), NVLS's fitted fixed cost, the network hops and the transport's base do not move. Each case by hand arithmetic,
// one latency-bound and one bandwidth-bound size.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "catalog/catalog.h"
#include "catalog/catalog_test_util.h"
#include "cost/collective.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;
using Algo = CollectiveAlgorithm;

constexpr double kFixedCostTestRatio = 1.5;

// The shipped parameter set with the NVLink 4 entry's ratio set to `ratio`.
CollectiveParams fixed_cost_params(double ratio) {
  CollectiveParams p = default_collective_params(default_catalog());
  for (auto& l : p.links) {
    if (l.link == "nvlink4") l.fixed_cost_ratio = ratio;
  }
  return p;
}

CollectiveTopology fixed_cost_topology(const CollectiveParams& p, const System& node) {
  return make_collective_topology(default_catalog(), node, nullptr, p);
}

const CollectiveLinkParams& fixed_cost_nvlink4(const CollectiveParams& p) {
  const CollectiveLinkParams* l = p.find_link("nvlink4", "nvlink");
  EXPECT_NE(l, nullptr);
  return *l;
}

TEST(CollectiveFixedCost, ShippedNvlink5CarriesTheMeasuredRatioAndHopperNone) {
  const CollectiveParams& p = default_collective_params(default_catalog());
  // NVIDIA/nccl#1940: 8 x B200 ~3.0 us against 8 x H200 / H800 ~2.3 us, same kernels and tuning.
  EXPECT_NEAR(p.find_link("nvlink5", "nvlink")->fixed_cost_ratio, 3.0 / 2.3, 0.005);
  EXPECT_DOUBLE_EQ(p.find_link("nvlink4", "nvlink")->fixed_cost_ratio, 1.0);
  // NVLink 3: A100's SM clock against Hopper's (1,980 / 1,410 MHz), no measurement.
  EXPECT_NEAR(p.find_link("nvlink3", "nvlink")->fixed_cost_ratio, 1980.0 / 1410.0, 0.001);
  EXPECT_DOUBLE_EQ(p.find_link("xgmi-mi300x", "xgmi")->fixed_cost_ratio, 1.0);
  // The topology of a B200 node carries it for the explanation.
  const Catalog& c = default_catalog();
  const CollectiveTopology b200 = make_collective_topology(c, c.system("dgx-b200"), nullptr, p);
  EXPECT_NEAR(b200.fixed_cost_ratio, 3.0 / 2.3, 0.005);
}

// The point-to-point fixed cost's prior is a measurement (data/fitted/collectives/nccl.toml
// [priors]): 8 x H20 (NVLink 4 through NVSwitch, as HGX H100) run alltoall_perf at 128 / 256 /
// 512 B in 10.59 / 10.48 / 10.56 us (github.com/deepseek-ai/DeepEP/issues/303). With every
// constant at its prior (NVLink 4 hops = NCCL's, p2p = the prior), the model's 128 B AllToAll on
// 8 NVLink 4 GPUs is direct/LL: latency = p2p + 1 x NCCL's NVLink LL hop = 9.94 + 0.6 =
// 10.54 us, transfer = 7/8 x 128 B at the LL rate (under 1 ns): the measured 10.48-10.59 us.
TEST(CollectiveFixedCost, TheP2pPriorReproducesItsSource) {
  CollectiveParams p = default_collective_params(default_catalog());
  p.p2p_latency_s = p.priors.p2p_latency_s;
  for (auto& l : p.links) {
    if (l.link == "nvlink4") l.ring_hop_latency_s = p.priors.nccl_nvlink_ring_hop_s;
  }
  EXPECT_NEAR(p.priors.p2p_latency_s, 9.94e-6, 1e-12);
  const CollectiveTopology t = fixed_cost_topology(p, default_catalog().system("dgx-h100"));
  const auto e = estimate_collective(request(CollectiveOp::all_to_all, 128, 8), t);
  ASSERT_TRUE(e.feasible) << e.reason;
  EXPECT_EQ(e.algorithm, Algo::direct);
  EXPECT_EQ(e.protocol, Protocol::ll);
  EXPECT_NEAR(e.latency_s, 9.94e-6 + 0.6e-6, 1e-12);
  EXPECT_LT(e.transfer_s, 1e-9);
  EXPECT_NEAR(e.time_s, (10.59e-6 + 10.48e-6 + 10.56e-6) / 3, 0.01e-6);
}

// NVLink 3 (A100) pays NCCL's base and hops x the clock ratio 1980 / 1410 = 1.404: an 8 x A100
// AllReduce of 512 B is ring/LL, latency = 1.404 x (6.6 us + 14 x 0.55 us) = 1.404 x 14.3 us =
// 20.08 us (the shipped hop is NCCL's 0.6 us x the fitted 0.917, rounded to 0.55 us); NCCL's
// own figures would give 6.6 + 14 x 0.6 = 15.0 us. AIConfigurator measures 22.6 us.
TEST(CollectiveFixedCost, AmpereRunsNcclsLatenciesAtItsClock) {
  const CollectiveParams& p = default_collective_params(default_catalog());
  const CollectiveTopology t = fixed_cost_topology(p, default_catalog().system("dgx-a100"));
  EXPECT_NEAR(t.fixed_cost_ratio, 1.404, 0.001);
  const auto e = estimate_collective(request(CollectiveOp::all_reduce, 512, 8), t);
  ASSERT_TRUE(e.feasible) << e.reason;
  EXPECT_EQ(e.algorithm, Algo::ring);
  EXPECT_EQ(e.protocol, Protocol::ll);
  EXPECT_NEAR(e.latency_s, 1.404 * (6.6e-6 + 14 * 0.55e-6), 1e-9);
}

// 512 B AllReduce on 8 GPUs, ring/LL (latency-bound): 2(n-1) = 14 NVLink steps,
// latency = r x (6.6 us + 14 x hop_LL); 1 GiB on ring/Simple (bandwidth-bound): latency =
// r x (8.4 us + 14 x hop_Simple) + the pipeline fill (not scaled), transfer unchanged.
TEST(CollectiveFixedCost, RingLatencyBoundAndBandwidthBoundByHand) {
  const CollectiveParams one = fixed_cost_params(1.0);
  const CollectiveParams more = fixed_cost_params(kFixedCostTestRatio);
  const System node = testing::test_node();
  const CollectiveTopology t1 = fixed_cost_topology(one, node);
  const CollectiveTopology tr = fixed_cost_topology(more, node);
  const CollectiveLinkParams& link = fixed_cost_nvlink4(more);
  const int ll = static_cast<int>(Protocol::ll);
  const int simple = static_cast<int>(Protocol::simple);

  const auto small = estimate_collective_with(request(CollectiveOp::all_reduce, 512, 8), tr, Algo::ring, Protocol::ll);
  ASSERT_TRUE(small.feasible) << small.reason;
  EXPECT_NEAR(small.latency_s, kFixedCostTestRatio * (6.6e-6 + 14 * link.ring_hop_latency_s[ll]), 1e-12);
  EXPECT_GT(small.latency_s, 10 * small.transfer_s) << "512 B should be latency-bound";

  const double gib = 1024.0 * 1024 * 1024;
  const auto big1 =
      estimate_collective_with(request(CollectiveOp::all_reduce, gib, 8), t1, Algo::ring, Protocol::simple);
  const auto bigr =
      estimate_collective_with(request(CollectiveOp::all_reduce, gib, 8), tr, Algo::ring, Protocol::simple);
  ASSERT_TRUE(big1.feasible && bigr.feasible);
  const double fixed1 = 8.4e-6 + 14 * link.ring_hop_latency_s[simple];
  const double fill = big1.latency_s - fixed1;  // Simple's pipeline fill, the same at either ratio
  EXPECT_GT(fill, 0);
  EXPECT_NEAR(bigr.latency_s, kFixedCostTestRatio * fixed1 + fill, 1e-12);
  EXPECT_DOUBLE_EQ(bigr.transfer_s, big1.transfer_s);
  EXPECT_GT(bigr.transfer_s, 10 * bigr.latency_s) << "1 GiB should be bandwidth-bound";
}

// AllToAll is grouped send/receive: its fixed cost stays (no measurement of it), the NVLink
// hop scales: latency = p2p + 1 x r x hop on one node.
TEST(CollectiveFixedCost, PointToPointCostStaysItsHopScales) {
  const CollectiveParams more = fixed_cost_params(kFixedCostTestRatio);
  const CollectiveTopology tr = fixed_cost_topology(more, testing::test_node());
  const CollectiveLinkParams& link = fixed_cost_nvlink4(more);
  const auto e = estimate_collective_with(request(CollectiveOp::all_to_all, 512, 8), tr, Algo::direct, Protocol::ll);
  ASSERT_TRUE(e.feasible) << e.reason;
  EXPECT_NEAR(e.latency_s,
              more.p2p_latency_s + kFixedCostTestRatio * link.ring_hop_latency_s[static_cast<int>(Protocol::ll)],
              1e-12);
}

// Across two nodes the NET hops are the transport's and stay: ring/Simple AllGather of 2 x 8
// GPUs, 15 steps, 1 across: latency = r x (8.4 + 14 x hop_Simple) + 1 x 14 us x 1.9 (+ fill).
TEST(CollectiveFixedCost, NetworkHopsDoNotScale) {
  const CollectiveParams one = fixed_cost_params(1.0);
  const CollectiveParams more = fixed_cost_params(kFixedCostTestRatio);
  const System node = testing::test_node();
  const CollectiveTopology t1 = fixed_cost_topology(one, node);
  const CollectiveTopology tr = fixed_cost_topology(more, node);
  const int simple = static_cast<int>(Protocol::simple);
  const double hop = fixed_cost_nvlink4(more).ring_hop_latency_s[simple];
  const auto r = request(CollectiveOp::all_gather, 65536, 8, 2);
  const auto e1 = estimate_collective_with(r, t1, Algo::ring, Protocol::simple);
  const auto er = estimate_collective_with(r, tr, Algo::ring, Protocol::simple);
  ASSERT_TRUE(e1.feasible && er.feasible);
  const double net = 14.0e-6 * 1.9 + t1.net_base_s;
  const double fill = e1.latency_s - (8.4e-6 + 14 * hop + net);
  EXPECT_GE(fill, 0);
  EXPECT_NEAR(er.latency_s, kFixedCostTestRatio * (8.4e-6 + 14 * hop) + net + fill, 1e-12);
}

TEST(CollectiveFixedCost, BadRatioNamesTheKey) {
  constexpr const char* kFixedCostParams = R"toml(kind = "collective_params"
id = "mine"
name = "test"
source = "test"
retrieved = "2026-11-27"
[latency]
ring_base_us = [6.6, 14.0, 8.4]
tree_base_us = [6.8, 14.0, 8.4]
[protocols]
ll_bw_fraction = 0.4
ll128_bw_fraction = 0.9
alltoall_bw_fraction = 0.8
[[link]]
link = "default"
bw_efficiency = 0.8
ring_hop_us = [0.6, 1.9, 3.4]
tree_hop_us = [0.6, 1.25, 4.0]
fixed_cost_ratio = 1.3
)toml";
  Catalog good;
  load_catalog_text(good, kFixedCostParams, "good.toml", false);
  EXPECT_DOUBLE_EQ(good.collective_params[0].links[0].fixed_cost_ratio, 1.3);
  for (const char* bad : {"fixed_cost_ratio = 0", "fixed_cost_ratio = -1.3", "fixed_cost_ratio = 12"}) {
    const std::string e = testing::catalog_error(testing::replaced(kFixedCostParams, "fixed_cost_ratio = 1.3", bad));
    EXPECT_NE(e.find("fixed_cost_ratio"), std::string::npos) << bad << ": " << e;
  }
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// The grouped send/receive fixed cost runs in SM cycles (issue 32, sixteenth session;
// cost/collective_topology.cpp): p2p_us is at Hopper's 1,980 MHz and scales with 1,980 / the
// GPU's boost clock. Idealised parameters (no hops, no fill, the links' rate) with p2p = 10 us
// on the catalog's systems, so only the clock moves the fixed part:
// - latency-bound, 8 x A100 (1,410 MHz) AllToAll of 512 B, direct/LL: latency = 10 x 1,980 /
//   1,410 = 14.043 us, transfer = 7/8 x 512 B / the A100's 300 GB/s = 1.49 ns; 8 x H100
//   (1,980 MHz) 10.000 us; 8 x B200 (1,965 MHz) 10.076 us; RCCL's MI300X (not NCCL) 10.000 us.
// - bandwidth-bound, 8 x A100 AllToAll of 512 MiB, direct/Simple: the same 14.043 us of latency
//   and a transfer of 7/8 x 536,870,912 B / 300 GB/s = 1,565.873 us, 1,579.916 us in all: the
//   clock moves it by 0.26%.
TEST(CollectiveFixedCost, ThePointToPointCostRunsInSmCycles) {
  const Catalog& cat = default_catalog();
  CollectiveParams p = ideal_collective_params();
  p.p2p_latency_s = 10e-6;
  const auto topo = [&](const char* system) { return make_collective_topology(cat, cat.system(system), nullptr, p); };
  const CollectiveTopology a100 = topo("dgx-a100");
  EXPECT_NEAR(a100.p2p_latency_s, 10e-6 * 1980 / 1410, 1e-12);
  EXPECT_NEAR(topo("dgx-h100").p2p_latency_s, 10e-6, 1e-12);
  EXPECT_NEAR(topo("dgx-b200").p2p_latency_s, 10e-6 * 1980 / 1965, 1e-12);
  // RCCL's xGMI entry (the shipped parameter set's) keeps p2p_us as it is.
  CollectiveParams shipped = default_collective_params(cat);
  shipped.p2p_latency_s = 10e-6;
  EXPECT_NEAR(make_collective_topology(cat, cat.system("mi300x-8"), nullptr, shipped).p2p_latency_s, 10e-6, 1e-12);

  const double a100_bw = cat.system("dgx-a100").scaleup_bw_uni_bytes_per_s;
  ASSERT_NEAR(a100_bw, 300e9, 1e6);
  const auto small = estimate_collective(request(CollectiveOp::all_to_all, 512, 8), a100);
  ASSERT_TRUE(small.feasible) << small.reason;
  EXPECT_EQ(small.algorithm, Algo::direct);
  EXPECT_EQ(small.protocol, Protocol::ll);
  EXPECT_NEAR(small.latency_s, 14.0426e-6, 0.0001e-6);
  EXPECT_NEAR(small.transfer_s, 7.0 / 8 * 512 / 300e9, 1e-13);

  const double bytes = 536870912.0;
  const auto big = estimate_collective(request(CollectiveOp::all_to_all, bytes, 8), a100);
  ASSERT_TRUE(big.feasible) << big.reason;
  EXPECT_EQ(big.protocol, Protocol::simple);
  EXPECT_NEAR(big.latency_s, 14.0426e-6, 0.0001e-6);
  EXPECT_NEAR(big.transfer_s, 7.0 / 8 * bytes / 300e9, 1e-9);
  EXPECT_NEAR(big.time_s, 1579.916e-6, 0.001e-6);
}

}  // namespace
}  // namespace gpuplan
