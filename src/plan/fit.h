// Fitting the efficiency figures to measured step times: a handful of physical figures per GPU
// family (data/fitted/efficiency/: GEMM and attention fractions of peak, achievable bandwidth,
// TP overlap, MoE synchronisation) and per training-framework family (data/fitted/frameworks/:
// host time per kernel, attention-kernel and fusion factors), never a factor per run.
// Used by `gpuplan validate training --fit` and its leave-one-source-out check.
#pragma once

#include <functional>
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

// The same fit on the samples `use` accepts (a time split, a calibration's own rows, ...).
FitResult fit_efficiencies_if(std::vector<FitSample>& samples, const std::vector<Efficiency>& entries,
                              const std::vector<Framework>& frameworks,
                              const std::function<bool(const FitSample&)>& use);

// A fitted figure at, or within 1% of, one end of its plausible range: a mechanism the model
// lacks is being absorbed by it (docs/validation.md, "Constants at their bounds").
struct ConstantAtBound {
  std::string entry;     // efficiency or framework id
  std::string constant;  // gemm_bf16, gemm_fp8, attention_fwd, hbm, tp_overlap, gemm_fp4; kernel_launch_s, attention_scale, fusion_scale
  double value = 0;
  double bound = 0;
  bool upper = false;    // at the upper end (else the lower)
  int rows = 0;          // samples the entry was fitted on
};

// The free figures of `fitted` that sit at a bound, for the entries `samples` use (an entry no
// sample uses was not fitted and is not reported). A figure no sample sees is not among them:
// it was not fitted (constants_not_identified).
std::vector<ConstantAtBound> constants_at_bounds(const FitResult& fitted, const std::vector<FitSample>& samples);

// A free figure no fitted sample sees: no sample's predicted step time changes by more than
// 0.1% as it moves from one end of its range to the other (every figure is monotone in the
// step time, so the two ends decide). The fit leaves it at its committed value (the rows carry
// no information on it); what would identify it is a row it moves.
struct UnidentifiedConstant {
  std::string entry;
  std::string constant;
  double value = 0;  // the committed value, kept
  int rows = 0;      // samples the entry was fitted on
};
std::vector<UnidentifiedConstant> constants_not_identified(const FitResult& fitted,
                                                           const std::vector<FitSample>& samples);

// Predicted step time of a sample under fitted entries (matched by id to the sample's).
double predict_with(FitSample& sample, const FitResult& fitted);

}  // namespace gpuplan
