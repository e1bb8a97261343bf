// Running a rank's share of a sweep: each cell through the exhaustive plan search
// (search/search.h), the results serialised for the gather to rank 0.
#pragma once

#include <string>

#include "core/progress.h"
#include "sweep/result.h"
#include "sweep/setup.h"

namespace gpuplan {

// One cell: `threads` search workers (0 = every core). Never throws for an infeasible cell.
SweepCellResult run_cell(const SweepSetup& setup, const SweepCell& cell, int threads);

// The cells `rank` of `ranks` owns (partition.h, by plan-space size), run in index order.
// Returns the payload for the gather: the cells' results, with the rank's wall time kept apart
// from them (merge.h) so timings never reach the result files. `progress` (core/progress.h)
// hears of each cell done, of the rank's cells.
std::string run_rank(const SweepSetup& setup, int rank, int ranks, int threads,
                     const ProgressSink* progress = nullptr);

// Rank `rank`'s cell indices (the same partition run_rank uses).
std::vector<int> rank_cells(const SweepSetup& setup, int rank, int ranks);

// The gather payload of one rank: its cell results and, apart from them, its wall time.
std::string rank_payload(int rank, const std::vector<SweepCellResult>& cells, double elapsed_s);

}  // namespace gpuplan
