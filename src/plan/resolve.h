// Filling in what a plan leaves open the way a well-tuned run would: the fastest setting that
// fits in memory. Used for the `unknown` fields of published runs (validate training) and for
// `--micro-batch 0` style questions.
#pragma once

#include "plan/evaluate.h"

namespace gpuplan {

struct PlanUnknowns {
  bool layout = false;       // tp, pp and dp (keeping tp × pp × cp × dp = gpus)
  bool sp = false;
  bool zero = false;
  bool micro_batch = false;
  bool recompute = false;
  bool vp = false;  // virtual pipeline stages per rank (interleaved schedule), when pp > 1
  // MoE AllToAll overlap: none or Megatron-Core's 1F1B overlap (the two settings of the
  // framework that publishes these runs; DualPipe is a different schedule, never assumed).
  bool moe_overlap = false;
  bool any() const { return layout || sp || zero || micro_batch || recompute || vp || moe_overlap; }
};

struct Resolved {
  Plan plan;
  Estimate estimate;
  int tried = 0;  // candidate plans evaluated
};

// The fastest candidate that fits; when none fits, the valid one needing the least memory
// (its estimate says why it is infeasible); when none is valid, the first candidate.
// `gpus` is the total the layout must use (with `layout`).
Resolved resolve_fastest(const TrainContext& ctx, const Plan& base, const PlanUnknowns& unknowns, int gpus);

}  // namespace gpuplan
