// Refits every fitted constant of the collective cost model (data/fitted/collectives/nccl.toml:
// the LL / LL128 bandwidth fractions, the Simple pipeline step, AllToAll's bandwidth fraction
// and p2p fixed cost, NVLS's base and per-GPU fixed cost, one hop-latency scale per NVLink
// generation and the bw_efficiency of the NVLink entries no other file measures) to a subset of
// measured collectives: what `validate collectives --leave-one-source-out / --leave-one-gpu-out`
// runs once per fold, and `--fit` on every row.
//
// Method (deterministic; docs/model/collectives.md "Fitting"): start from the priors
// ([priors] in the TOML); a constant is *visible* on a training row when moving it to either
// end of its search range changes that row's predicted time; a constant with no visible row
// keeps its prior (so does NVLS's per-GPU cost when the visible rows have one domain size
// only: base and per-GPU cost cannot be told apart). The visible constants are fitted by
// coordinate descent, each step a grid search of 41 points over the constant's range refined
// twice by 10x around the best (NVLS base and per-GPU cost together, on a 2-D grid), minimising
// the mean |log(predicted / measured time)| over the training rows; sweeps repeat until no
// constant moves (at most 20; the folds of shared/data/collectives.csv converge in 6-16).
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/collective_params.h"
#include "validate/collective_measurement.h"

namespace gpuplan {

struct CollectiveFittedConstant {
  std::string name;      // "ll_bw_fraction", "hop_scale nvlink3", "bw_efficiency nvlink3", ...
  std::string unit;      // "" (a fraction or scale), "us", "MB"
  double value = 0;      // in `unit`
  double prior = 0;      // in `unit`: the value with no visible row
  double shipped = 0;    // in `unit`: the value of the parameter set the fit started from
  int visible_rows = 0;  // training rows whose predicted time it moves (at the priors)
  bool refitted = false;  // false: no visible row (or not separable), the prior stands
  std::string why_prior;  // when not refitted: why
};

struct CollectiveConstantsFit {
  std::string held_out;  // what the fold left out ("" for a fit on every row)
  int rows = 0;          // training rows
  double loss = 0;       // mean |log(predicted / measured)| on them at the fitted values
  int sweeps = 0;        // coordinate-descent sweeps run
  std::vector<CollectiveFittedConstant> constants;
};

// Fits on the rows i with train[i] (same length as rows). Throws Error when `params` has no
// [priors] table, or when no row is for training.
CollectiveConstantsFit fit_collective_constants(const std::vector<CollectiveMeasurement>& rows,
                                                const std::vector<bool>& train, const Catalog& catalog,
                                                const CollectiveParams& params);

// `params` with the fitted values of `fit` in place of its own.
CollectiveParams with_fitted_constants(const CollectiveParams& params, const CollectiveConstantsFit& fit);

}  // namespace gpuplan
