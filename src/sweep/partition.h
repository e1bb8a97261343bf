// Which rank runs which cells: a static partition every rank computes for itself from the
// same inputs, so no rank has to ask another (no master, no messages before the gather).
//
// Why not round robin: a cell's search costs roughly its plan space, which grows with the
// divisors of the GPU count and the model's shape — in one sweep the biggest cell is often
// 100× the smallest, and round robin can hand all the big ones to one rank. Longest
// processing time first (Graham 1969: within 4/3 of the best makespan) takes the cells
// largest first and gives each to the rank with the least work so far.
#pragma once

#include <vector>

namespace gpuplan {

// `cost[i]` is cell i's estimated cost (> 0). Returns, per rank, its cell indices in increasing
// order; every cell lands on exactly one rank. Ties go to the lower cell index and the lower
// rank, so the answer depends only on the costs and the rank count.
std::vector<std::vector<int>> partition_cells(const std::vector<double>& cost, int ranks);

}  // namespace gpuplan
