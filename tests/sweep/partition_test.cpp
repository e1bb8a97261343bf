// The static partition of cells over ranks: every cell exactly once for any rank count, the
// same answer every time, and the list-scheduling bound on the most loaded rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "sweep/partition.h"

namespace gpuplan {
namespace {

std::vector<double> random_costs(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  // Plan spaces span orders of magnitude: log-uniform over 1 .. 1e5.
  std::uniform_real_distribution<double> exponent(0.0, 5.0);
  std::vector<double> cost(n);
  for (double& c : cost) c = std::round(std::pow(10.0, exponent(rng)));
  return cost;
}

TEST(SweepPartition, EveryCellExactlyOnceForAnyRankCount) {
  for (std::size_t cells : {0u, 1u, 2u, 7u, 24u, 100u}) {
    const std::vector<double> cost = random_costs(cells, static_cast<unsigned>(cells));
    for (int ranks = 1; ranks <= 13; ++ranks) {
      const auto parts = partition_cells(cost, ranks);
      ASSERT_EQ(parts.size(), static_cast<std::size_t>(ranks));
      std::vector<int> seen(cells, 0);
      for (const auto& part : parts) {
        EXPECT_TRUE(std::is_sorted(part.begin(), part.end()));
        for (int c : part) {
          ASSERT_GE(c, 0);
          ASSERT_LT(static_cast<std::size_t>(c), cells);
          ++seen[static_cast<std::size_t>(c)];
        }
      }
      for (std::size_t c = 0; c < cells; ++c) EXPECT_EQ(seen[c], 1) << "cell " << c << " on " << ranks << " ranks";
    }
  }
}

TEST(SweepPartition, DependsOnlyOnTheCostsAndRankCount) {
  const std::vector<double> cost = random_costs(50, 7);
  EXPECT_EQ(partition_cells(cost, 4), partition_cells(cost, 4));
  // Equal costs: ties go to the lower rank, so the first cells spread over ranks 0, 1, 2.
  const auto parts = partition_cells(std::vector<double>(6, 1.0), 3);
  EXPECT_EQ(parts, (std::vector<std::vector<int>>{{0, 3}, {1, 4}, {2, 5}}));
}

TEST(SweepPartition, MostLoadedRankWithinTheListSchedulingBound) {
  // Greedy list scheduling (Graham 1966): makespan <= total / ranks + the largest cost.
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const std::vector<double> cost = random_costs(40, seed);
    const double total = std::accumulate(cost.begin(), cost.end(), 0.0);
    const double largest = *std::max_element(cost.begin(), cost.end());
    for (int ranks : {2, 3, 5, 8}) {
      double makespan = 0;
      for (const auto& part : partition_cells(cost, ranks)) {
        double load = 0;
        for (int c : part) load += cost[static_cast<std::size_t>(c)];
        makespan = std::max(makespan, load);
      }
      EXPECT_LE(makespan, total / ranks + largest) << "seed " << seed << ", " << ranks << " ranks";
    }
  }
}

TEST(SweepPartition, BigCellsDoNotPileUpOnOneRank) {
  // Round robin over {big, small, big, small} on 2 ranks gives both big cells to rank 0.
  const auto parts = partition_cells({1000, 1, 1000, 1}, 2);
  EXPECT_EQ(parts, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
}

}  // namespace
}  // namespace gpuplan
