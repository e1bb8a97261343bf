// The sweep's result files. Both are pure functions of the spec and the cell results in cell
// order — no timings, rank counts, hosts or output paths — so `mpirun -np N gpuplan sweep`
// writes the same bytes as a single process. Numbers are written in the shortest form that
// reads back to the same double (fmt's and nlohmann's defaults), never rounded.
#pragma once

#include <string>
#include <vector>

#include "sweep/result.h"
#include "sweep/spec.h"

namespace gpuplan {

inline constexpr const char* kSweepSchema = "gpuplan-sweep/1";

// One row per ranked plan (rank 1..K) of each cell, cells in order; a cell where nothing fits
// has one row with status "infeasible", the closest plan and the reason. RFC 4180 quoting.
std::string sweep_csv(const SweepSpec& spec, const std::vector<SweepCellResult>& cells);

// {"schema", "spec" (as written, without output paths), "cells", "results": [cell, ...]}.
std::string sweep_json(const SweepSpec& spec, const std::vector<SweepCellResult>& cells);

// Writes `text` to `path` (creating its folder); throws Error naming the path on failure.
void write_text_file(const std::string& path, const std::string& text);

// Creates `path`'s folder and checks the file can be opened for writing (creating it empty if
// absent, leaving an existing one as it is), so a typo in an output path fails before a long
// sweep rather than after it. Throws Error naming the path.
void check_writable(const std::string& path);

}  // namespace gpuplan
