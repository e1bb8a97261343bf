// Rank 0's side of the gather: every rank's payload (run.h) back into one list of cell results
// in cell order, whatever the rank count or partition, with each rank's timing kept apart.
#pragma once

#include <string>
#include <vector>

#include "sweep/result.h"

namespace gpuplan {

struct RankTiming {
  int rank = 0;
  int cells = 0;
  double elapsed_s = 0;
};

struct MergedSweep {
  std::vector<SweepCellResult> cells;  // by cell index: cells[i].cell == i
  std::vector<RankTiming> ranks;       // by rank; for stdout only, never in the result files
};

// Throws Error when a payload is malformed or the payloads do not hold each of the
// `cell_count` cells exactly once (ranks that disagree about the spec or the partition).
MergedSweep merge_payloads(const std::vector<std::string>& payloads, std::size_t cell_count);

}  // namespace gpuplan
