// A sweep spec resolved against the catalog: the models, GPUs, their systems, prices and
// training contexts, and the cells (model × GPU × GPU count) in enumeration order. Everything
// that can reject the spec happens here, before any rank starts work, so every rank of a
// distributed sweep fails the same way or not at all (no rank waits on one that threw).
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "plan/evaluate.h"
#include "search/search.h"
#include "sweep/spec.h"

namespace gpuplan {

struct SweepGpu {
  const Gpu* gpu = nullptr;
  const System* system = nullptr;  // for counts > 1 (the catalog's system, as `gpuplan search`)
  double usd_per_gpu_hour = 0;     // 0 = no price known (cost columns left empty)
  std::string price_source;
};

// One search: cells are numbered model-major, then GPU, then count, in the spec's order.
struct SweepCell {
  int index = 0;
  int model_idx = 0;
  int gpu_idx = 0;
  int gpus = 0;
  long long plans_in_space = 0;  // count_plans(): the partition's cost estimate
};

struct SweepSetup {
  SweepSpec spec;
  std::vector<const ModelSpec*> models;  // owned by the caller (the zoo, or config.json files it read)
  std::vector<SweepGpu> gpus;
  std::vector<SweepCell> cells;
  // contexts[(model_idx × gpus + gpu_idx) × 2 + (count > 1)]; only those some cell uses are built.
  std::vector<TrainContext> contexts;

  const TrainContext& context(const SweepCell& cell) const;
  SearchSpace space(const SweepCell& cell) const;
  SearchOptions options(const SweepCell& cell, int threads) const;
};

// `models` are the spec's models, resolved by the caller in the spec's order. Throws Error
// naming the spec's key for an unknown GPU (with the nearest names), a GPU listed twice under
// two names, a GPU without a system for counts > 1 or without efficiency data, and a missing
// price for objective cost.
SweepSetup make_sweep_setup(const Catalog& catalog, const SweepSpec& spec, std::vector<const ModelSpec*> models);

}  // namespace gpuplan
