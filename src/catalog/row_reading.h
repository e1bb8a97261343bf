// How gpuplan reads a published run whose row in a validation file contradicts its own source:
// a stated column that the row's note or the cited paper/framework says means something else
// (Llama 3 405B: `vp 1` beside "uses interleaved PP schedule"; torchtitan: `micro_batch` is the
// per-rank local batch that torchtitan splits into one micro-batch per pipeline stage). Each
// reading replaces one cell before the row is parsed, says why, and is printed with the row
// (`validate training`), so no correction is silent. Loaded from data/validation/*.toml
// (`kind = "row_readings"`); users can add their own with --catalog.
#pragma once

#include <string>
#include <vector>

#include "core/provenance.h"

namespace gpuplan {

struct RowReading {
  std::string row_id;  // the row's `id` cell, exact
  std::string column;  // the column whose cell is replaced
  std::string stated;  // what the row says (checked: a reading of a changed row is an error)
  std::string value;   // what it is read as ("unknown": resolved like the file's unknown cells)
  std::string why;     // the evidence, with its source
};

struct RowReadings {
  std::string id;                    // "training-runs"
  std::vector<std::string> aliases;  // unused; the catalog's lookups expect the field
  std::string file;                  // the validation file's name the readings are for ("training-runs.csv")
  std::vector<RowReading> readings;
  Provenance provenance;
};

}  // namespace gpuplan
