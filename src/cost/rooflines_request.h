// `gpuplan rooflines` as a library call: RooflinesRequest (the CLI's flags) → answer_rooflines
// → RooflinesAnswer (the seed's scaling rooflines per level, cost/rooflines.h), written by
// report/rooflines_report.h. Bad input throws Error naming the flag, the value and the fix.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/precision.h"
#include "cost/rooflines.h"

namespace gpuplan {

struct RooflinesRequest {
  std::string gpu;     // sets C; may differ from the system's GPU (what-ifs: H100 compute on NVL72 links)
  std::string system;  // default: the fabric's, or the catalog's system for the GPU
  std::string fabric;
  std::string precision = "bf16";
  double ffn = RooflineInputs{}.ffn;
  double experts = RooflineInputs{}.experts;
  double topk = RooflineInputs{}.top_k;
  int ep = RooflineInputs{}.ep;
};

struct RooflinesAnswer {
  const Gpu* gpu = nullptr;
  const System* system = nullptr;
  const Fabric* fabric = nullptr;  // nullptr: no fabric named
  Precision precision = Precision::bf16;
  RooflineInputs inputs;  // with flops_per_s = the GPU's dense peak at `precision`
  std::vector<LevelRoofline> levels;
};

RooflinesAnswer answer_rooflines(const Catalog& catalog, const RooflinesRequest& request);

}  // namespace gpuplan
