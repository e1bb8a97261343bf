// estimate_collective compares the (algorithm, protocol) lines by their time alone and builds
// the full estimate of the winner only (cost/collective_protocols.cpp, line_time): the answer
// must be, field for field and to the bit, the full estimate of the first cheapest line.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

using testing::request;
using testing::seed_superpod;
using testing::test_node;

constexpr CollectiveOp kAllOps[] = {CollectiveOp::all_reduce, CollectiveOp::all_gather,
                                    CollectiveOp::reduce_scatter, CollectiveOp::all_to_all,
                                    CollectiveOp::broadcast, CollectiveOp::send_recv};

void expect_same(const CollectiveEstimate& a, const CollectiveEstimate& b, const std::string& where) {
  EXPECT_EQ(a.feasible, b.feasible) << where;
  EXPECT_STREQ(a.reason, b.reason) << where;
  EXPECT_EQ(a.time_s, b.time_s) << where;
  EXPECT_EQ(a.latency_s, b.latency_s) << where;
  EXPECT_EQ(a.transfer_s, b.transfer_s) << where;
  EXPECT_EQ(a.algbw_bytes_per_s, b.algbw_bytes_per_s) << where;
  EXPECT_EQ(a.busbw_bytes_per_s, b.busbw_bytes_per_s) << where;
  EXPECT_EQ(a.algorithm, b.algorithm) << where;
  EXPECT_EQ(a.protocol, b.protocol) << where;
  EXPECT_EQ(a.bottleneck_level, b.bottleneck_level) << where;
  EXPECT_EQ(a.level_bytes, b.level_bytes) << where;
  EXPECT_EQ(a.level_bw_bytes_per_s, b.level_bw_bytes_per_s) << where;
  EXPECT_EQ(a.level_time_s, b.level_time_s) << where;
}

TEST(CollectiveAuto, IsTheFullEstimateOfTheFirstCheapestLineBitForBit) {
  const Catalog& cat = default_catalog();
  const CollectiveParams& params = default_collective_params(cat);
  const Fabric pod = seed_superpod();
  System mesh = test_node(448e9);
  mesh.scaleup_topology = "mesh";
  mesh.scaleup_link = "xgmi-mi300x";
  mesh.scaleup_per_peer_bw_uni_bytes_per_s = 64e9;
  mesh.in_network_reduction = false;
  const std::vector<CollectiveTopology> topologies = {
      make_collective_topology(cat, test_node(), nullptr, params),
      make_collective_topology(cat, test_node(), &pod, params),
      make_collective_topology(cat, mesh, nullptr, params),
      make_collective_topology(cat, test_node(900e9, 72), nullptr, params)};
  int compared = 0;
  for (const CollectiveTopology& t : topologies) {
    const bool fabric = t.level_count > 1;
    for (auto [g, m] : std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {4, 1}, {8, 1}, {1, 2}, {8, 2}, {8, 16}, {8, 128}}) {
      if (m > 1 && !fabric) continue;
      if (g > t.domain_gpus) continue;
      for (CollectiveOp op : kAllOps) {
        for (double bytes = 64; bytes <= 3e10; bytes *= 3.1) {
          CollectiveRequest r = request(op, bytes, g, m);
          r.concurrent = bytes > 1e6 ? 2 : 1;
          const CollectiveEstimate best = estimate_collective(r, t);
          const std::string where = std::string(op_name(op)) + " " + std::to_string(g) + "x" + std::to_string(m) +
                                    " " + std::to_string(bytes) + " on " + t.system_id;
          // The time-only call (the evaluator's) answers the same, to the bit.
          const CollectiveTime time = estimate_collective_time(r, t);
          EXPECT_EQ(time.feasible, best.feasible) << where;
          EXPECT_EQ(time.time_s, best.time_s) << where;
          EXPECT_STREQ(time.reason, best.reason) << where;
          if (!best.feasible) {
            EXPECT_TRUE(collective_candidates(r, t).empty()) << where;
            continue;
          }
          expect_same(best, estimate_collective_with(r, t, best.algorithm, best.protocol), where);
          // The cheapest of all lines, and no line costed before it (algorithm, then protocol
          // order) is as cheap: the first of equal times wins.
          const std::vector<CollectiveEstimate> all = collective_candidates(r, t);
          ASSERT_FALSE(all.empty()) << where;
          EXPECT_EQ(best.time_s, all.front().time_s) << where;
          for (const CollectiveEstimate& c : all) {
            const bool earlier = c.algorithm < best.algorithm ||
                                 (c.algorithm == best.algorithm && c.protocol < best.protocol);
            if (earlier) {
              EXPECT_GT(c.time_s, best.time_s) << where;
            }
          }
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

// Requests that cannot run: the time-only call gives estimate_collective's reason, and time 0.
TEST(CollectiveAuto, TimeOnlyCallRejectsWhatTheEstimateRejects) {
  const Catalog& cat = default_catalog();
  const CollectiveTopology t = make_collective_topology(cat, test_node(), nullptr, default_collective_params(cat));
  CollectiveRequest no_bytes = request(CollectiveOp::all_reduce, 0, 8, 1);
  CollectiveRequest too_wide = request(CollectiveOp::all_reduce, 1e6, 16, 1);  // 16 GPUs in an 8-GPU domain
  CollectiveRequest alone = request(CollectiveOp::send_recv, 1e6, 1, 1);      // SendRecv needs 2 GPUs or more
  for (const CollectiveRequest& r : {no_bytes, too_wide, alone}) {
    const CollectiveEstimate e = estimate_collective(r, t);
    const CollectiveTime time = estimate_collective_time(r, t);
    ASSERT_FALSE(e.feasible);
    EXPECT_FALSE(time.feasible);
    EXPECT_STREQ(time.reason, e.reason);
    EXPECT_EQ(time.time_s, 0);
  }
}

}  // namespace
}  // namespace gpuplan
