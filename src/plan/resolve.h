// Filling in what a plan leaves open: the fastest setting that fits in memory (`--micro-batch 0`
// style questions), or, for a published run whose source does not say, what its framework does
// when a config does not say (validate training), with the spread over every setting that fits.
#pragma once

#include <optional>

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
  // Step times of the fastest and slowest candidates that fit and differ from the chosen plan
  // only in sequence parallelism, recompute and MoE overlap (0 when none fits): the spread
  // between the plausible settings of the unknown fields, the row's uncertainty.
  double fastest_step_s = 0;
  double slowest_step_s = 0;
};

// What a framework does with a setting its user's config leaves unset (data/fitted/frameworks/
// [defaults]); a field without a default is resolved to the fastest setting that fits.
struct SettingDefaults {
  std::optional<bool> sp_with_tp;         // sequence parallelism on exactly when tp > 1
  std::optional<Recompute> recompute;     // and the next heavier one when it does not fit
  std::optional<MoeOverlap> moe_overlap;
};

// The fastest candidate that fits; when none fits, the valid one needing the least memory
// (its estimate says why it is infeasible); when none is valid, the first candidate.
// `gpus` is the total the layout must use (with `layout`).
Resolved resolve_fastest(const TrainContext& ctx, const Plan& base, const PlanUnknowns& unknowns, int gpus);

// The framework's defaults for the unknown fields that have one: the default sequence
// parallelism and MoE overlap where a candidate with them fits, the lightest recompute at or
// above the default that fits (a run that ran fitted in memory); the remaining unknowns take
// the fastest setting that fits. `fastest_step_s`/`slowest_step_s` span the settings of the
// defaulted fields that fit, defaults or not. Falls back to resolve_fastest's choice when no candidate fits.
Resolved resolve_with_defaults(const TrainContext& ctx, const Plan& base, const PlanUnknowns& unknowns, int gpus,
                               const SettingDefaults& defaults);

}  // namespace gpuplan
