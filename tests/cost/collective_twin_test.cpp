// same_collective_time (cost/collective.h) lets the training evaluator cost a tensor-parallel
// AllGather and the ReduceScatter of the same buffer once: the claim it rests on is that
// estimate_collective_time answers the two alike, bit for bit, on every system and fabric of
// the catalog, every forced algorithm, packed and strided groups, and shared links.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/collective_test_util.h"

namespace gpuplan {
namespace {

std::vector<CollectiveTopology> twin_topologies() {
  const Catalog& cat = default_catalog();
  const CollectiveParams& params = default_collective_params(cat);
  std::vector<CollectiveTopology> out;
  for (const System& s : cat.systems) out.push_back(make_collective_topology(cat, s, nullptr, params));
  for (const Fabric& f : cat.fabrics) {
    for (const System& s : cat.systems) {
      if (s.id == f.system) out.push_back(make_collective_topology(cat, s, &f, params));
    }
  }
  return out;
}

TEST(CollectiveTwin, AllGatherAndReduceScatterOfOneBufferTakeTheSameTimeBitForBit) {
  constexpr CollectiveAlgorithm kForced[] = {CollectiveAlgorithm::auto_, CollectiveAlgorithm::ring,
                                             CollectiveAlgorithm::tree, CollectiveAlgorithm::nvls,
                                             CollectiveAlgorithm::direct};
  int compared = 0;
  int feasible = 0;
  for (const CollectiveTopology& t : twin_topologies()) {
    for (int g : {1, 2, 3, 4, 8, 72}) {
      for (int m : {1, 2, 3, 16, 64}) {
        for (int stride : {1, 4}) {
          for (CollectiveAlgorithm a : kForced) {
            for (double bytes = 100; bytes <= 4e10; bytes *= 7.3) {
              CollectiveRequest ag = testing::request(CollectiveOp::all_gather, bytes, g, m, a);
              ag.domain_stride = stride;
              ag.concurrent = bytes > 1e7 ? 3 : 1;
              CollectiveRequest rs = ag;
              rs.op = CollectiveOp::reduce_scatter;
              ASSERT_TRUE(same_collective_time(ag, rs));
              const CollectiveTime x = estimate_collective_time(ag, t);
              const CollectiveTime y = estimate_collective_time(rs, t);
              const std::string where = std::to_string(g) + " x " + std::to_string(m) + " GPUs, stride " +
                                        std::to_string(stride) + ", " + std::to_string(bytes) + " B";
              ASSERT_EQ(x.feasible, y.feasible) << where;
              ASSERT_STREQ(x.reason, y.reason) << where;
              ASSERT_EQ(x.time_s, y.time_s) << where;  // to the bit
              ++compared;
              if (x.feasible) ++feasible;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 10000);
  EXPECT_GT(feasible, 1000);
}

TEST(CollectiveTwin, EveryOtherDifferenceIsADifferentRequest) {
  const CollectiveRequest base = testing::request(CollectiveOp::all_gather, 1e6, 8, 2);
  EXPECT_TRUE(same_collective_time(base, base));
  auto differs = [&](auto change) {
    CollectiveRequest r = base;
    change(r);
    return !same_collective_time(base, r) && !same_collective_time(r, base);
  };
  EXPECT_TRUE(differs([](CollectiveRequest& r) { r.op = CollectiveOp::all_reduce; }));
  EXPECT_TRUE(differs([](CollectiveRequest& r) { r.op = CollectiveOp::all_to_all; }));
  EXPECT_TRUE(differs([](CollectiveRequest& r) { r.op = CollectiveOp::broadcast; }));
  EXPECT_TRUE(differs([](CollectiveRequest& r) { r.bytes = 2e6; }));
  EXPECT_TRUE(differs([](CollectiveRequest& r) { r.gpus_per_domain = 4; }));
  EXPECT_TRUE(differs([](CollectiveRequest& r) { r.domains = 4; }));
  EXPECT_TRUE(differs([](CollectiveRequest& r) { r.domain_stride = 2; }));
  EXPECT_TRUE(differs([](CollectiveRequest& r) { r.algorithm = CollectiveAlgorithm::ring; }));
  EXPECT_TRUE(differs([](CollectiveRequest& r) { r.concurrent = 2; }));
  // AllReduce and ReduceScatter are not twins (the ring's wire bytes differ by 2x).
  CollectiveRequest ar = base;
  ar.op = CollectiveOp::all_reduce;
  CollectiveRequest rs = base;
  rs.op = CollectiveOp::reduce_scatter;
  EXPECT_FALSE(same_collective_time(ar, rs));
  EXPECT_TRUE(same_collective_time(rs, base));
}

}  // namespace
}  // namespace gpuplan
