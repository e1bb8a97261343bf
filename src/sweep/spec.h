// The sweep spec: a design-space study as one JSON file — models × GPUs × GPU counts, each
// cell answered by the plan search (`gpuplan search`). Schema and example: docs/sweep.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/precision.h"
#include "search/rank.h"

namespace gpuplan {

// The options of `gpuplan search` that apply to every cell.
struct SweepSearchOptions {
  int threads = 0;              // per rank; 0 = this node's cores / the ranks on this node
  double time_limit_s = 0;      // per cell; 0 = exhaustive (a limit makes results machine-dependent)
  bool prune = true;            // false = brute force (same answer, slower)
  double usd_per_gpu_hour = 0;  // 0 = each GPU's cheapest current on-demand offer
};

struct SweepSpec {
  std::string file;                 // the spec's path, for messages and for resolving relative paths
  std::string description;          // free text, echoed into the JSON result
  std::vector<std::string> models;  // zoo ids or config.json paths, as written
  std::vector<std::string> gpus;    // catalog ids or aliases, as written
  std::vector<int> gpu_counts;
  int global_batch = 0;  // sequences per step
  int seq_len = 0;       // tokens per sequence
  Precision precision = Precision::bf16;
  Objective objective = Objective::time;
  int top_k = 3;        // plans kept per cell
  std::string out_csv;  // "" = none; relative paths resolved against the spec's folder
  std::string out_json;
  SweepSearchOptions search;
};

// Parses a spec strictly; `file` names it in messages and anchors relative paths. Throws Error
// naming the key path for an unknown key (listing the known ones), a missing key, a repeated
// list entry or a value of the wrong type. Names are not looked up here (make_sweep_setup).
SweepSpec parse_sweep_spec(std::string_view text, const std::string& file);
SweepSpec load_sweep_spec(const std::string& path);

// A path written in the spec, made relative to the spec's folder unless it is absolute.
std::string spec_relative_path(const SweepSpec& spec, const std::string& path);

// Whether a `models` entry names a file (ends in .json or holds a '/') rather than a zoo id.
bool is_model_path(std::string_view entry);

}  // namespace gpuplan
