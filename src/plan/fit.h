// Fitting each GPU family's efficiency factors (data/fitted/efficiency/) to measured step
// times: a handful of physical figures per architecture (GEMM and attention fractions of
// peak, achievable bandwidth, TP overlap, per-kernel overhead), never a factor per run.
// Used by `gpuplan validate training --fit` and its leave-one-source-out check.
#pragma once

#include <string>
#include <vector>

#include "plan/evaluate.h"

namespace gpuplan {

struct FitSample {
  TrainContext ctx;  // its efficiency is replaced while fitting
  Plan plan;
  double measured_step_s = 0;
  std::string source;
  std::string efficiency_id;  // the entry that serves its GPU
};

// Robust loss of one prediction: |ln(predicted / measured)|, capped so that a source whose
// runs the physics cannot explain (a slow framework) does not drag the others.
double fit_loss(double predicted_s, double measured_s);

// Points `ctx` at another efficiency entry (recomputing the roofline device).
void retarget_efficiency(TrainContext& ctx, const Efficiency& efficiency);

// Fits the entries that serve the samples' GPUs, leaving out samples from `exclude_source`
// (empty = use all). Returns the fitted copies of `entries` (same order).
std::vector<Efficiency> fit_efficiencies(std::vector<FitSample>& samples, const std::vector<Efficiency>& entries,
                                         const std::string& exclude_source = "");

// Predicted step time of a sample under `entries` (matched by id to the sample's entry).
double predict_with(FitSample& sample, const std::vector<Efficiency>& entries);

}  // namespace gpuplan
