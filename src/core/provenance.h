// Where a figure came from: every catalog entry carries its source and retrieval date.
#pragma once

#include <string>

namespace gpuplan {

struct Provenance {
  std::string source;     // URL(s) or citation, several joined with " ; "
  std::string retrieved;  // ISO date the figure was read, e.g. "2026-11-01"
  std::string file;       // data file it was loaded from ("<embedded>/..." or a user path)
};

}  // namespace gpuplan
