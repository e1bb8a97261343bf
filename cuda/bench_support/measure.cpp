#include "bench_support/measure.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {
namespace {

// l2_read buffers are whole 64 KiB blocks, so every size is a multiple of the kernels' vectors.
constexpr double kL2Block = 64 * 1024;
// Collectives run on fp32 elements split in one chunk per rank.
constexpr double kCollectiveElementBytes = 4;

class Sweeper {
 public:
  Sweeper(BenchDevice& device, const SweepOptions& sweep, Measurement& out)
      : device_(device), sweep_(sweep), out_(out), info_(device.info()) {}

  void run() {
    CalibrationProfile& p = out_.profile;
    p.gpu_name = info_.name;
    p.sm_count = info_.sm_count;
    p.driver = info_.driver;
    p.cuda = info_.cuda;
    memory();
    gemms();
    collectives();
    layers();
    steps();
  }

 private:
  // The median of a checked timing; a wrong result ends the measurement.
  static double checked(Timing t, const std::string& what) {
    if (!t.correct) throw Error(fmt::format("{} gave a wrong result ({}); no profile written", what, t.check));
    if (t.times_s.empty()) throw Error(fmt::format("{} returned no timings", what));
    return median(std::move(t.times_s));
  }

  void note(const std::string& text) {
    if (std::find(out_.notes.begin(), out_.notes.end(), text) == out_.notes.end()) out_.notes.push_back(text);
  }

  void bandwidth(const std::string& op, double bytes) {
    BandwidthPoint b;
    b.op = op;
    b.bytes = bytes;
    b.time_s = checked(device_.time_memory(op, bytes, sweep_.runs), fmt::format("memory {} of {} bytes", op, bytes));
    b.bw_bytes_per_s = bandwidth_bytes_moved(op, bytes) / b.time_s;
    out_.profile.memory_bandwidth.push_back(b);
  }

  void memory() {
    for (const std::string& op : sweep_.memory_ops) {
      for (double bytes : sweep_.memory_bytes) bandwidth(op, bytes);
    }
    if (!sweep_.l2_fractions.empty() && info_.l2_bytes < kL2Block) {
      note("the device reports no L2 size; l2_read not measured");
    } else {
      for (double fraction : sweep_.l2_fractions) {
        bandwidth("l2_read", std::max(kL2Block, std::floor(info_.l2_bytes * fraction / kL2Block) * kL2Block));
      }
    }
    for (const std::string& op : sweep_.host_ops) {
      for (double bytes : sweep_.host_bytes) bandwidth(op, bytes);
    }
  }

  void gemms() {
    for (const GemmShape& shape : sweep_.gemms) {
      const std::string what = fmt::format("{} {} GEMM {}x{}x{}", shape.kernel, precision_name(shape.precision),
                                           shape.m, shape.n, shape.k);
      Timing t = device_.time_gemm(shape.kernel, shape.precision, shape.m, shape.n, shape.k, sweep_.runs);
      if (!t.skipped.empty()) {
        note(fmt::format("{} {} GEMMs not measured: {}", shape.kernel, precision_name(shape.precision), t.skipped));
        continue;
      }
      GemmPoint g;
      g.kernel = shape.kernel;
      g.precision = shape.precision;
      g.m = shape.m;
      g.n = shape.n;
      g.k = shape.k;
      g.time_s = checked(std::move(t), what);
      g.flops_per_s = 2 * g.m * g.n * g.k / g.time_s;
      out_.profile.gemm.push_back(g);
    }
  }

  void collectives() {
    if (sweep_.collective_ops.empty() || sweep_.collective_bytes.empty()) return;
    const int gpus = info_.collective_gpus;
    if (gpus < 2) {
      // One rank's "collective" is a local copy: it says nothing about a link, and its bus
      // bandwidth, algbw·(n−1)/n, is 0.
      note(!info_.collective_note.empty() ? info_.collective_note
                                          : "one GPU: collectives need at least 2 and were not measured");
      return;
    }
    const double unit = kCollectiveElementBytes * gpus;  // whole fp32 elements in every rank's chunk
    for (const std::string& op : sweep_.collective_ops) {
      for (double wanted : sweep_.collective_bytes) {
        const double bytes = std::floor(wanted / unit) * unit;
        if (bytes <= 0) continue;
        CollectivePoint c;
        c.op = op;
        c.gpus = gpus;
        c.bytes = bytes;
        c.time_s = checked(device_.time_collective(op, bytes, sweep_.runs),
                           fmt::format("{} of {} bytes over {} GPUs", op, bytes, gpus));
        c.algbw_bytes_per_s = bytes / c.time_s;
        c.busbw_bytes_per_s = c.algbw_bytes_per_s * collective_bus_factor(op, gpus);
        out_.profile.collectives.push_back(c);
      }
    }
  }

  static void require_runnable(const LayerShape& shape) {
    if (const std::string problem = layer_shape_problem(shape); !problem.empty()) {
      throw Error(fmt::format("layer '{}': {}", shape.name, problem));
    }
  }

  void layers() {
    if (sweep_.layers.empty()) return;
    require_runnable(sweep_.layer_check);
    // The small shape first: a layer that computes the wrong thing is not timed at all.
    const Timing check = device_.check_layer(sweep_.layer_check);
    if (!check.correct) {
      throw Error(fmt::format("transformer layer check on '{}' failed ({}); no profile written",
                              sweep_.layer_check.name, check.check));
    }
    for (const LayerShape& shape : sweep_.layers) {
      require_runnable(shape);
      LayerTiming t = device_.time_layer(shape, sweep_.runs);
      const std::string what = fmt::format("transformer layer '{}'", shape.name);
      if (!t.correct) throw Error(fmt::format("{} gave a wrong result ({}); no profile written", what, t.check));
      if (t.fwd_times_s.empty() || t.bwd_times_s.empty()) throw Error(fmt::format("{} returned no timings", what));
      LayerPoint l;
      l.shape = shape;
      l.precision = Precision::bf16;
      l.fwd_time_s = median(std::move(t.fwd_times_s));
      l.bwd_time_s = median(std::move(t.bwd_times_s));
      l.flops = layer_train_flops(shape);
      l.flops_per_s = l.flops / (l.fwd_time_s + l.bwd_time_s);
      out_.profile.layers.push_back(l);
    }
  }

  static void require_runnable(const StepShape& shape) {
    if (const std::string problem = step_shape_problem(shape); !problem.empty()) {
      throw Error(fmt::format("training step '{}': {}", shape.name(), problem));
    }
  }

  void steps() {
    if (sweep_.steps.empty()) return;
    require_runnable(sweep_.step_check);
    // As for the layer: a step that computes the wrong thing is not timed at all.
    const Timing check = device_.check_step(sweep_.step_check);
    if (!check.correct) {
      throw Error(fmt::format("training step check on '{}' failed ({}); no profile written", sweep_.step_check.name(),
                              check.check));
    }
    for (const StepShape& shape : sweep_.steps) {
      require_runnable(shape);
      StepTiming t = device_.time_step(shape, sweep_.runs);
      const std::string what = fmt::format("training step '{}'", shape.name());
      if (!t.correct) throw Error(fmt::format("{} gave a wrong result ({}); no profile written", what, t.check));
      if (t.fwd_times_s.empty() || t.step_times_s.empty()) throw Error(fmt::format("{} returned no timings", what));
      StepPoint p;
      p.shape = shape;
      p.precision = Precision::bf16;
      p.fwd_time_s = median(std::move(t.fwd_times_s));
      p.step_time_s = median(std::move(t.step_times_s));
      p.flops = step_train_flops(shape);
      p.flops_per_s = p.flops / p.step_time_s;
      out_.profile.steps.push_back(p);
    }
  }

  BenchDevice& device_;
  const SweepOptions& sweep_;
  Measurement& out_;
  BenchDeviceInfo info_;
};

}  // namespace

double median(std::vector<double> values) {
  GP_ASSERT(!values.empty(), "a median of no timings");
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

Measurement measure_profile(BenchDevice& device, const SweepOptions& sweep, CalibrationProfile header) {
  Measurement m;
  m.profile = std::move(header);
  Sweeper(device, sweep, m).run();
  return m;
}

}  // namespace gpuplan
