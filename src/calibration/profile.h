// A calibration profile: what gpuplan-bench measured on one GPU (GEMM throughput by shape and
// precision, memory, L2 and host-link bandwidth by size, collective bus bandwidth by size,
// whole transformer layers, and whole training steps), read strictly from JSON
// (docs/calibration.md). Profiles are written by gpuplan-bench, never by hand.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "calibration/layer_shape.h"
#include "calibration/step_shape.h"
#include "core/precision.h"
#include "cost/collective.h"

namespace gpuplan {

// /2 added L2 and host-link bandwidth ops and layers[]; /3 added steps[]. /2 and /1 files
// (without them) still load.
inline constexpr const char* kCalibrationSchema = "gpuplan-calibration/3";
inline constexpr const char* kCalibrationSchemaV2 = "gpuplan-calibration/2";
inline constexpr const char* kCalibrationSchemaV1 = "gpuplan-calibration/1";

// One timed GEMM: C[m,n] = A[m,k] · B[k,n], 2·m·n·k FLOPs.
struct GemmPoint {
  std::string kernel;  // "cublaslt" | "wmma"
  Precision precision = Precision::bf16;
  double m = 0, n = 0, k = 0;
  double time_s = 0;       // median of the timed runs
  double flops_per_s = 0;  // 2·m·n·k / time_s
};

// One timed transfer over `bytes` of buffer. Device memory: "read" | "write" | "copy" (HBM-sized
// buffers) and "l2_read" (a buffer that fits in L2, read over and over; time_s is one pass).
// Host links: "h2d_pinned" | "d2h_pinned" | "h2d_pageable" | "d2h_pageable" (cudaMemcpy).
struct BandwidthPoint {
  std::string op;
  double bytes = 0;
  double time_s = 0;
  double bw_bytes_per_s = 0;  // bandwidth_bytes_moved(op, bytes) / time_s
};

// Bytes an op moves over a buffer of `bytes`: a copy reads and writes, so 2×; every other op 1×
// (STREAM's convention).
double bandwidth_bytes_moved(const std::string& op, double bytes);

// One collective over `gpus` GPUs. `bytes` is nccl-tests' size: the per-rank buffer of the
// larger side (all_reduce: the buffer; all_gather: the gathered output; reduce_scatter: the
// input; all_to_all: the send buffer). algbw = bytes / time_s; busbw = algbw × bus factor.
struct CollectivePoint {
  std::string op;  // "all_reduce" | "all_gather" | "reduce_scatter" | "all_to_all"
  int gpus = 0;
  double bytes = 0;
  double time_s = 0;
  double algbw_bytes_per_s = 0;
  double busbw_bytes_per_s = 0;
  int line = 0;  // where an nccl-tests log printed it (0: a gpuplan-bench profile); never written back
};

// nccl-tests' bus-bandwidth factor (doc/PERFORMANCE.md): all_reduce 2(n−1)/n, all_gather,
// reduce_scatter and all_to_all (n−1)/n. The factor turns algbw into the bandwidth each link
// carries, comparable across n and with the link's peak.
double collective_bus_factor(const std::string& op, int gpus);
// The profile's op names ("all_reduce", ...) and the cost model's ops: nullopt for a name the
// profile does not use, "" for an op gpuplan-bench does not measure (broadcast, send/recv).
std::optional<CollectiveOp> profile_collective_op(const std::string& name);
std::string profile_collective_name(CollectiveOp op);

// One transformer layer (layer_shape.h) timed forward and backward.
struct LayerPoint {
  LayerShape shape;
  Precision precision = Precision::bf16;
  double fwd_time_s = 0;   // median
  double bwd_time_s = 0;   // median
  double flops = 0;        // layer_train_flops(shape): forward + backward
  double flops_per_s = 0;  // flops / (fwd_time_s + bwd_time_s)
};

// One training step (step_shape.h) timed end to end: embedding, layers, LM head and loss,
// backward, and the AdamW update of every parameter.
struct StepPoint {
  StepShape shape;
  Precision precision = Precision::bf16;  // of the GEMMs; master weights and moments are fp32
  double fwd_time_s = 0;   // median of forward alone (to the loss)
  double step_time_s = 0;  // median of the whole step
  double flops = 0;        // step_train_flops(shape): forward + backward
  double flops_per_s = 0;  // flops / step_time_s
};

struct CalibrationProfile {
  std::string file;  // where it was read from, for messages
  // The GPU it was measured on.
  std::string gpu_id;    // catalog id ("h100-sxm"); the profile only applies to this GPU
  std::string gpu_name;  // as the driver names it ("NVIDIA H100 80GB HBM3")
  int sm_count = 0;
  std::string driver;
  std::string cuda;
  // How and when.
  std::string tool;     // "gpuplan-bench 0.1.0"
  std::string command;  // the command line that wrote it
  std::string date;     // ISO 8601, UTC
  std::string host;
  std::vector<GemmPoint> gemm;
  std::vector<BandwidthPoint> memory_bandwidth;
  std::vector<CollectivePoint> collectives;
  std::vector<LayerPoint> layers;
  std::vector<StepPoint> steps;

  // The best measured GEMM throughput for a precision: the achievable peak. nullopt = not measured.
  std::optional<double> peak_flops_per_s(Precision p) const;
  // The best measured read or copy bandwidth: the achievable HBM bandwidth (never l2_read or a
  // host link, which measure other paths). Only buffers of at least `min_buffer_bytes` count:
  // a read over a buffer that fits in L2 measures the L2 (hbm_min_buffer_bytes, calibrate.h).
  std::optional<double> hbm_bw_bytes_per_s(double min_buffer_bytes = 0) const;
};

// Strict: a missing key, an unknown key, a wrong type or a non-positive figure throws Error
// naming the file and the key path ("gemm[2].flops_per_s"). Reads schema /3, /2 and /1 (in
// which the later additions are unknown, and so errors).
CalibrationProfile parse_calibration(const nlohmann::json& doc, const std::string& file);
CalibrationProfile load_calibration(const std::string& path);
// The JSON gpuplan-bench writes; parse_calibration(calibration_json(p)) == p.
nlohmann::ordered_json calibration_json(const CalibrationProfile& profile);

}  // namespace gpuplan
