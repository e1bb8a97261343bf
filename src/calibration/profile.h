// A calibration profile: what gpuplan-bench measured on one GPU (GEMM throughput by shape and
// precision, memory bandwidth by size, collective bus bandwidth by size), read strictly from
// JSON (docs/calibration.md). Profiles are written by gpuplan-bench, never by hand.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/precision.h"

namespace gpuplan {

inline constexpr const char* kCalibrationSchema = "gpuplan-calibration/1";

// One timed GEMM: C[m,n] = A[m,k] · B[k,n], 2·m·n·k FLOPs.
struct GemmPoint {
  std::string kernel;  // "cublaslt" | "wmma"
  Precision precision = Precision::bf16;
  double m = 0, n = 0, k = 0;
  double time_s = 0;       // median of the timed runs
  double flops_per_s = 0;  // 2·m·n·k / time_s
};

// One timed device-memory kernel over `bytes` of buffer. Bytes moved count reads and writes:
// a copy of N bytes moves 2N (STREAM's convention).
struct BandwidthPoint {
  std::string op;  // "read" | "write" | "copy"
  double bytes = 0;
  double time_s = 0;
  double bw_bytes_per_s = 0;
};

// One collective over `gpus` GPUs, nccl-tests' algbw and busbw definitions.
struct CollectivePoint {
  std::string op;  // "all_reduce" | "all_gather" | "reduce_scatter" | "all_to_all"
  int gpus = 0;
  double bytes = 0;
  double time_s = 0;
  double algbw_bytes_per_s = 0;
  double busbw_bytes_per_s = 0;
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

  // The best measured GEMM throughput for a precision: the achievable peak. nullopt = not measured.
  std::optional<double> peak_flops_per_s(Precision p) const;
  // The best measured read or copy bandwidth: the achievable HBM bandwidth.
  std::optional<double> hbm_bw_bytes_per_s() const;
};

// Strict: a missing key, an unknown key, a wrong type or a non-positive figure throws Error
// naming the file and the key path ("gemm[2].flops_per_s").
CalibrationProfile parse_calibration(const nlohmann::json& doc, const std::string& file);
CalibrationProfile load_calibration(const std::string& path);
// The JSON gpuplan-bench writes; parse_calibration(calibration_json(p)) == p.
nlohmann::ordered_json calibration_json(const CalibrationProfile& profile);

}  // namespace gpuplan
