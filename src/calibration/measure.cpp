#include "calibration/measure.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {

SweepOptions default_sweep(bool quick) {
  SweepOptions s;
  constexpr double kMiB = 1024.0 * 1024.0;
  for (double bytes = kMiB; bytes <= (quick ? 256 : 4096) * kMiB; bytes *= 4) s.memory_bytes.push_back(bytes);
  s.gemms.push_back({"wmma", Precision::fp16, 4096, 4096, 4096});
  for (int size = 256; size <= (quick ? 4096 : 16384); size *= 2) {
    s.gemms.push_back({"cublaslt", Precision::bf16, size, size, size});
  }
  if (!quick) {
    // Llama-3-8B (hidden 4096, 32 q / 8 kv heads of 128, FFN 14336), 8192 tokens: QKV, output
    // projection, gate+up, down.
    s.gemms.push_back({"cublaslt", Precision::bf16, 8192, 6144, 4096});
    s.gemms.push_back({"cublaslt", Precision::bf16, 8192, 4096, 4096});
    s.gemms.push_back({"cublaslt", Precision::bf16, 8192, 28672, 4096});
    s.gemms.push_back({"cublaslt", Precision::bf16, 8192, 4096, 14336});
  }
  s.runs = quick ? 5 : 20;
  return s;
}

double median(std::vector<double> values) {
  GP_ASSERT(!values.empty(), "a median of no timings");
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

CalibrationProfile measure_profile(BenchDevice& device, const SweepOptions& sweep, CalibrationProfile header) {
  CalibrationProfile p = std::move(header);
  const BenchDeviceInfo info = device.info();
  p.gpu_name = info.name;
  p.sm_count = info.sm_count;
  p.driver = info.driver;
  p.cuda = info.cuda;
  auto checked = [](Timing t, const std::string& what) {
    if (!t.correct) throw Error(fmt::format("{} gave a wrong result ({}); no profile written", what, t.check));
    if (t.times_s.empty()) throw Error(fmt::format("{} returned no timings", what));
    return median(std::move(t.times_s));
  };
  for (const std::string& op : sweep.memory_ops) {
    for (double bytes : sweep.memory_bytes) {
      BandwidthPoint b;
      b.op = op;
      b.bytes = bytes;
      b.time_s = checked(device.time_memory(op, bytes, sweep.runs), fmt::format("memory {} of {} bytes", op, bytes));
      b.bw_bytes_per_s = (op == "copy" ? 2 : 1) * bytes / b.time_s;  // a copy reads and writes
      p.memory_bandwidth.push_back(b);
    }
  }
  for (const GemmShape& shape : sweep.gemms) {
    GemmPoint g;
    g.kernel = shape.kernel;
    g.precision = shape.precision;
    g.m = shape.m;
    g.n = shape.n;
    g.k = shape.k;
    g.time_s = checked(device.time_gemm(shape.kernel, shape.precision, shape.m, shape.n, shape.k, sweep.runs),
                       fmt::format("{} {} GEMM {}x{}x{}", shape.kernel, precision_name(shape.precision), shape.m,
                                   shape.n, shape.k));
    g.flops_per_s = 2 * g.m * g.n * g.k / g.time_s;
    p.gemm.push_back(g);
  }
  return p;
}

}  // namespace gpuplan
