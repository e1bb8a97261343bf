// What gpuplan-bench does between the device and the profile: the sweep, the medians and the
// FLOP and byte counts. The device sits behind BenchDevice (CUDA in cuda/, a fake in the tests),
// so everything here runs without a GPU.
#pragma once

#include <string>
#include <vector>

#include "calibration/profile.h"

namespace gpuplan {

struct BenchDeviceInfo {
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int sm_count = 0;
  std::string driver;
  std::string cuda;
};

// One kernel timed `runs` times after warm-up (CUDA events), its output poisoned before and
// checked against a reference after, on fresh random inputs.
struct Timing {
  std::vector<double> times_s;
  bool correct = false;
  std::string check;  // what was compared and the worst error, for the message when wrong
};

class BenchDevice {
 public:
  virtual ~BenchDevice() = default;
  virtual BenchDeviceInfo info() const = 0;
  // op: "read" | "write" | "copy" over a buffer of `bytes`.
  virtual Timing time_memory(const std::string& op, double bytes, int runs) = 0;
  // kernel: "cublaslt" (any precision the device supports) | "wmma" (fp16, 16×16×16 tiles).
  virtual Timing time_gemm(const std::string& kernel, Precision precision, int m, int n, int k, int runs) = 0;
};

struct GemmShape {
  std::string kernel;
  Precision precision = Precision::bf16;
  int m = 0, n = 0, k = 0;
};

struct SweepOptions {
  std::vector<std::string> memory_ops = {"read", "write", "copy"};
  std::vector<double> memory_bytes;  // buffer sizes
  std::vector<GemmShape> gemms;
  int runs = 20;
};

// The default sweep: memory 1 MiB…4 GiB by ×4, WMMA fp16 at 4096³, cuBLASLt bf16 squares
// 256…16384 and the GEMMs of a Llama-3-8B layer at 8192 tokens. `quick` is a seconds-long subset.
SweepOptions default_sweep(bool quick);

double median(std::vector<double> values);

// Runs the sweep on `device` and returns the profile; `header` supplies gpu_id, tool, command,
// date and host (the device fills name, SMs, driver, CUDA). Throws Error when any kernel's
// result is wrong: a wrong kernel's timing must never become a calibration.
CalibrationProfile measure_profile(BenchDevice& device, const SweepOptions& sweep, CalibrationProfile header);

}  // namespace gpuplan
