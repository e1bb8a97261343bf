// What gpuplan-bench does between the device and the profile: the sweep, the medians, and the
// FLOP and byte counts. The device sits behind BenchDevice (CUDA in cuda/, a fake in the tests),
// so everything here runs without a GPU.
#pragma once

#include <string>
#include <vector>

#include "calibration/layer_shape.h"
#include "calibration/profile.h"
#include "calibration/step_shape.h"
#include "catalog/catalog.h"

namespace gpuplan {

struct BenchDeviceInfo {
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int sm_count = 0;
  std::string driver;
  std::string cuda;
  int compute_capability = 0;  // major·10 + minor: 90 for H100, 80 for A100
  double l2_bytes = 0;         // cudaDevAttrL2CacheSize
  int collective_gpus = 0;     // ranks one collective spans (local GPUs, or MPI ranks); 0 = no NCCL
  std::string collective_note;  // why there are no collectives, when collective_gpus is 0
};

// One kernel timed `runs` times after warm-up (CUDA events), its output poisoned before and
// checked against a reference after, on fresh random inputs.
struct Timing {
  std::vector<double> times_s;
  bool correct = false;
  std::string check;    // what was compared and the worst error, for the message when wrong
  std::string skipped;  // non-empty: the device cannot run this (fp8 before sm_89), and why
};

struct LayerTiming {
  std::vector<double> fwd_times_s;
  std::vector<double> bwd_times_s;
  bool correct = false;
  std::string check;
};

struct StepTiming {
  std::vector<double> fwd_times_s;   // forward alone: embedding to loss
  std::vector<double> step_times_s;  // the whole step: forward, backward, AdamW
  bool correct = false;
  std::string check;
};

class BenchDevice {
 public:
  virtual ~BenchDevice() = default;
  virtual BenchDeviceInfo info() const = 0;
  // op: "read" | "write" | "copy" | "l2_read" over a device buffer of `bytes` (l2_read: the
  // seconds of one pass, each timed launch making many), or a host link "h2d_pinned" |
  // "d2h_pinned" | "h2d_pageable" | "d2h_pageable" copying `bytes`.
  virtual Timing time_memory(const std::string& op, double bytes, int runs) = 0;
  // kernel: "cublaslt" (fp32, tf32, bf16, fp16, fp8) | "wmma" (fp16, 16×16×16 tiles).
  virtual Timing time_gemm(const std::string& kernel, Precision precision, int m, int n, int k, int runs) = 0;
  // op: "all_reduce" | "all_gather" | "reduce_scatter" | "all_to_all" of fp32 over
  // info().collective_gpus ranks; `bytes` (nccl-tests' size) is a multiple of 4 × ranks.
  virtual Timing time_collective(const std::string& op, double bytes, int runs) = 0;
  // The layer's forward output against a CPU double reference, and its gradients against
  // finite differences of that reference; a small shape, not timed.
  virtual Timing check_layer(const LayerShape& shape) = 0;
  // Forward and backward timed separately (bf16); the outputs checked to be all finite.
  virtual LayerTiming time_layer(const LayerShape& shape, int runs) = 0;
  // One training step on a small shape, not timed: the loss against a CPU double reference,
  // the gradients against finite differences of that reference, and the AdamW update against
  // the CPU formula.
  virtual Timing check_step(const StepShape& shape) = 0;
  // Forward alone and whole steps timed (bf16 GEMMs, fp32 master weights and AdamW state);
  // every buffer checked to be finite after.
  virtual StepTiming time_step(const StepShape& shape, int runs) = 0;
};

struct GemmShape {
  std::string kernel;
  Precision precision = Precision::bf16;
  int m = 0, n = 0, k = 0;
};

struct SweepOptions {
  std::vector<std::string> memory_ops = {"read", "write", "copy"};
  std::vector<double> memory_bytes;  // HBM buffer sizes
  std::vector<double> l2_fractions;  // l2_read buffers, as fractions of the device's L2
  std::vector<std::string> host_ops = {"h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable"};
  std::vector<double> host_bytes;
  std::vector<GemmShape> gemms;
  std::vector<std::string> collective_ops = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"};
  std::vector<double> collective_bytes;
  LayerShape layer_check;          // checked against the CPU before any layer is timed
  std::vector<LayerShape> layers;  // timed
  StepShape step_check;            // checked against the CPU before any step is timed
  std::vector<StepShape> steps;    // timed
  int runs = 20;
};

// The zoo models whose layer GEMMs the default sweep times, and the tokens (rows) they run at.
inline constexpr const char* kSweepModels[] = {"llama3.1-8b", "llama3.1-70b", "qwen3-32b", "mixtral-8x7b"};
inline constexpr int kSweepModelTokens = 8192;

// The forward GEMMs of each kind of layer of `model` (QKV, attention output, MLP or expert
// up/gate and down; routers and shapes not multiples of 16 left out) at `tokens` rows, as
// workload/ops.h shapes them on one GPU (no tensor parallelism), deduplicated.
std::vector<GemmShape> model_gemm_shapes(const ModelSpec& model, int tokens, Precision precision);

// The default sweep (docs/calibration.md); `quick` is a seconds-long subset. Model GEMM
// shapes (kSweepModels) and the default timed layer (llama3.1-8b) come from the catalog's zoo;
// the timed training step is a 1B-class stack (Llama-3.2-1B's shape, untied).
SweepOptions default_sweep(bool quick, const Catalog& catalog);

double median(std::vector<double> values);

struct Measurement {
  CalibrationProfile profile;
  std::vector<std::string> notes;  // what was skipped, and why
};

// Runs the sweep on `device` and returns the profile; `header` supplies gpu_id, tool, command,
// date and host (the device fills name, SMs, driver, CUDA). Throws Error when any result is
// wrong: a wrong kernel's timing must never become a calibration.
Measurement measure_profile(BenchDevice& device, const SweepOptions& sweep, CalibrationProfile header);

}  // namespace gpuplan
