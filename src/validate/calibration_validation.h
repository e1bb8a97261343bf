// `gpuplan validate calibration PROFILE.json`: what gpuplan predicts for everything a
// calibration profile measured, before and after calibrating with that very profile (issue 7,
// measured vs predicted). Two models are set beside each measurement:
// - the kernel roofline: the benchmark's own kernels (bench_layer_cost.h) on the GPU's reference
//   ceilings ([achievable_tflops], [achievable_memory_bw]; the datasheet where the catalog has
//   none) before, and on the measured ceilings and GEMM-shape curve after. GEMM points after
//   calibration are predicted leave-one-out (the curve and ceiling from the other points), so a
//   point never predicts itself;
// - the training evaluator (what `gpuplan train` says for the same layer on one GPU), before
//   and after `--calibration`: it prices a layer as a framework runs it (FlashAttention,
//   overheads fitted on published runs), so it is expected above a bare-cuBLAS measurement.
#pragma once

#include <string>
#include <vector>

#include "calibration/layer_shape.h"
#include "calibration/profile.h"
#include "calibration/step_shape.h"
#include "catalog/catalog.h"
#include "core/precision.h"
#include "validate/error_stats.h"

namespace gpuplan {

struct GemmCheck {
  std::string kernel;
  Precision precision = Precision::bf16;
  double m = 0, n = 0, k = 0;
  double measured_flops_per_s = 0;
  double before_flops_per_s = 0;  // reference ceiling × shape model
  double after_flops_per_s = 0;   // measured ceiling × shape model × shape curve, leave-one-out; 0 = no other point
};

struct BandwidthCheck {
  std::string op;
  double bytes = 0;
  double measured_bytes_per_s = 0;
  double before_bytes_per_s = 0;  // the reference (or datasheet) ceiling
  bool fits_l2 = false;           // a buffer under 4 × L2: it measures the L2, not the HBM
};

struct LayerCheck {
  LayerShape shape;
  double measured_fwd_s = 0, measured_bwd_s = 0;
  double kernel_before_s = 0, kernel_after_s = 0;  // forward + backward
  double kernel_gemm_share = 0;                    // GEMM share of kernel_after_s
  double train_before_s = 0, train_after_s = 0;    // the training evaluator's forward + backward
  double measured_s() const { return measured_fwd_s + measured_bwd_s; }
};

// A whole training step (embedding, layers, LM head, loss, backward, AdamW).
struct StepCheck {
  StepShape shape;
  double measured_fwd_s = 0, measured_step_s = 0;
  double kernel_before_s = 0, kernel_after_s = 0;  // the whole step
  double kernel_gemm_share = 0;
  double train_before_s = 0, train_after_s = 0;  // the training evaluator's step time, one GPU
};

struct CollectiveCheck {
  std::string op;
  int gpus = 0;
  double bytes = 0;
  double measured_s = 0;
  double model_s = 0;  // 0 = the model cannot place it
};

struct CalibrationValidation {
  std::string gpu_id;
  std::string profile_file;
  std::string system_id;           // where the collectives were modelled
  std::vector<std::string> notes;  // which ceilings the "before" model used, and what was skipped
  std::vector<GemmCheck> gemms;
  std::vector<BandwidthCheck> bandwidth;
  std::vector<LayerCheck> layers;
  std::vector<StepCheck> steps;
  std::vector<CollectiveCheck> collectives;
  ErrorGroups gemm_before, gemm_after;    // by precision
  ErrorGroups model_before, model_after;  // layers and steps: kernel roofline and training evaluator
  ErrorGroups collective_model;           // by op and GPU count
};

// A layer is "GEMM-heavy" when GEMMs take at least this share of its kernel-roofline time: the
// rows the targets (15% before, 7% after calibration) are judged on.
inline constexpr double kGemmHeavyShare = 0.8;
inline constexpr double kTargetBefore = 0.15;
inline constexpr double kTargetAfter = 0.07;

// `system_id` = "" picks the GPU's default system for the collectives.
CalibrationValidation validate_calibration(const CalibrationProfile& profile, const Catalog& catalog,
                                           const std::string& system_id = "");

}  // namespace gpuplan
