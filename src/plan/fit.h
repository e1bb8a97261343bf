// Fitting the efficiency figures to measured step times: a handful of physical figures per GPU
// family (data/fitted/efficiency/: GEMM and attention fractions of peak, achievable bandwidth,
// TP overlap, MoE synchronisation) and per training-framework family (data/fitted/frameworks/:
// host time per kernel, attention-kernel and fusion factors), never a factor per run.
// Used by `gpuplan validate training --fit` and its leave-one-source-out check.
#pragma once

#include <string>
#include <vector>

#include "plan/evaluate.h"

namespace gpuplan {

struct FitSample {
  TrainContext ctx;  // its efficiency and framework are replaced while fitting
  Plan plan;
  double measured_step_s = 0;
  std::string source;
  std::string efficiency_id;  // the entry that serves its GPU
  std::string framework_id;   // the framework its source ran ("" = none in the catalog)
  int row_index = -1;         // the caller's row this sample came from (-1: none)
};

struct FitResult {
  std::vector<Efficiency> efficiencies;  // same order as the entries given
  std::vector<Framework> frameworks;
};

// Robust loss of one prediction: |ln(predicted / measured)|, capped so that a source whose
// runs the physics cannot explain does not drag the others.
double fit_loss(double predicted_s, double measured_s);

// Points `ctx` at other efficiency and framework entries (recomputing the roofline device).
void retarget(TrainContext& ctx, const Efficiency& efficiency, const Framework* framework);

// Fits the entries that serve the samples, leaving out samples from `exclude_source` (empty =
// use all): GPU families and framework families in turn (two rounds). The default framework is
// the reference of the families' kernel fractions: only its host time per kernel is fitted.
// An entry no remaining sample uses keeps its figures.
FitResult fit_efficiencies(std::vector<FitSample>& samples, const std::vector<Efficiency>& entries,
                           const std::vector<Framework>& frameworks, const std::string& exclude_source = "");

// Predicted step time of a sample under fitted entries (matched by id to the sample's).
double predict_with(FitSample& sample, const FitResult& fitted);

}  // namespace gpuplan
