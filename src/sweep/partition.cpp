#include "sweep/partition.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"

namespace gpuplan {

std::vector<std::vector<int>> partition_cells(const std::vector<double>& cost, int ranks) {
  GP_ASSERT(ranks >= 1, "a sweep runs on at least one rank");
  std::vector<int> order(cost.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return cost[static_cast<std::size_t>(a)] > cost[static_cast<std::size_t>(b)]; });
  std::vector<std::vector<int>> cells(static_cast<std::size_t>(ranks));
  std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
  for (int cell : order) {
    // min_element returns the first of equal loads: the lowest rank.
    const auto rank = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[rank] += cost[static_cast<std::size_t>(cell)];
    cells[rank].push_back(cell);
  }
  for (auto& list : cells) std::sort(list.begin(), list.end());
  return cells;
}

}  // namespace gpuplan
