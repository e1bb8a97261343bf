// gpuplan-bench's sweep against a fake device: medians, FLOP and byte counts, L2 sizes, bus
// bandwidth, skips, a profile the loader accepts, and no profile when any result is wrong.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bench_support/measure.h"
#include "catalog/catalog.h"
#include "core/error.h"
#include "report/validation_report.h"

namespace gpuplan {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// A device with fixed figures: HBM 2 TB/s, L2 8 TB/s, host links 25 GB/s, every GEMM at 500
// TFLOP/s, collectives at 100 GB/s bus bandwidth, a layer of 1 ms forward and 2 ms backward, a
// training step of 10 ms forward and 40 ms in all. The run times carry one slow outlier (a
// clock ramp) that the median must ignore.
class FakeDevice final : public BenchDevice {
 public:
  int compute_capability = 90;
  int gpus = 4;
  double l2_bytes = 50 * kMiB;
  // "memory", "gemm", "collective", "layer_check", "layer", "step_check", "step": that result is wrong
  std::string wrong;
  std::vector<std::string> calls;
  std::vector<double> collective_bytes_seen;

  BenchDeviceInfo info() const override {
    BenchDeviceInfo i;
    i.name = "Fake GPU";
    i.sm_count = 100;
    i.driver = "999.1";
    i.cuda = "13.0";
    i.compute_capability = compute_capability;
    i.l2_bytes = l2_bytes;
    i.collective_gpus = gpus;
    return i;
  }
  Timing time_memory(const std::string& op, double bytes, int runs) override {
    calls.push_back(op);
    const double bw = op == "l2_read" ? 8e12 : op.find("2") != std::string::npos ? 25e9 : 2e12;
    return timings(bandwidth_bytes_moved(op, bytes) / bw, runs, wrong == "memory");
  }
  Timing time_gemm(const std::string&, Precision precision, int m, int n, int k, int runs) override {
    if (precision == Precision::fp8 && compute_capability < 89) {
      Timing skip;
      skip.skipped = "fp8 needs sm_89 or later";
      return skip;
    }
    Timing t = timings(2.0 * m * n * k / 500e12, runs, wrong == "gemm");
    t.check = "max relative error 0.5 against the CPU reference";
    return t;
  }
  Timing time_collective(const std::string& op, double bytes, int runs) override {
    collective_bytes_seen.push_back(bytes);
    return timings(bytes * collective_bus_factor(op, gpus) / 100e9, runs, wrong == "collective");
  }
  Timing check_layer(const LayerShape& shape) override {
    calls.push_back("check " + shape.name);
    Timing t;
    t.correct = wrong != "layer_check";
    t.check = "forward: RMS error 0.4";
    return t;
  }
  LayerTiming time_layer(const LayerShape& shape, int runs) override {
    calls.push_back("layer " + shape.name);
    LayerTiming t;
    t.correct = wrong != "layer";
    t.check = "non-finite outputs";
    t.fwd_times_s = timings(1e-3, runs, false).times_s;
    t.bwd_times_s = timings(2e-3, runs, false).times_s;
    return t;
  }
  Timing check_step(const StepShape& shape) override {
    calls.push_back("check step " + shape.name());
    Timing t;
    t.correct = wrong != "step_check";
    t.check = "loss 6.9 against the reference's 6.2";
    return t;
  }
  StepTiming time_step(const StepShape& shape, int runs) override {
    calls.push_back("step " + shape.name());
    StepTiming t;
    t.correct = wrong != "step";
    t.check = "non-finite values: 3 in m";
    t.fwd_times_s = timings(10e-3, runs, false).times_s;
    t.step_times_s = timings(40e-3, runs, false).times_s;
    return t;
  }

 private:
  static Timing timings(double time_s, int runs, bool wrong_result) {
    Timing t;
    t.correct = !wrong_result;
    t.check = "3 of 1000 words wrong";
    for (int run_idx = 0; run_idx < runs; ++run_idx) t.times_s.push_back(run_idx == 0 ? 10 * time_s : time_s);
    return t;
  }
};

CalibrationProfile header() {
  CalibrationProfile h;
  h.gpu_id = "h100-sxm";
  h.tool = "gpuplan-bench test";
  h.command = "gpuplan-bench --gpu h100-sxm";
  h.date = "2025-01-01T00:00:00Z";
  h.host = "fake";
  return h;
}

std::string measure_error(FakeDevice& device, const SweepOptions& sweep) {
  try {
    measure_profile(device, sweep, header());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Measure, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(Measure, SweepGivesTheFakeDevicesFiguresAndALoadableProfile) {
  FakeDevice device;
  const Measurement m = measure_profile(device, default_sweep(true, default_catalog()), header());
  const CalibrationProfile& p = m.profile;
  EXPECT_EQ(p.gpu_name, "Fake GPU");
  EXPECT_TRUE(m.notes.empty());
  ASSERT_FALSE(p.memory_bandwidth.empty());
  for (const auto& b : p.memory_bandwidth) {
    const double want = b.op == "l2_read" ? 8e12 : b.op.find('2') != std::string::npos ? 25e9 : 2e12;
    EXPECT_NEAR(b.bw_bytes_per_s / want, 1, 1e-12) << b.op;  // a copy counted twice
  }
  ASSERT_FALSE(p.gemm.empty());
  EXPECT_EQ(p.gemm.front().kernel, "wmma");
  for (const auto& g : p.gemm) EXPECT_NEAR(g.flops_per_s / 500e12, 1, 1e-12);
  for (Precision precision : {Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp16, Precision::fp8}) {
    EXPECT_TRUE(p.peak_flops_per_s(precision)) << precision_name(precision);
  }
  ASSERT_EQ(p.collectives.size(), 8u);  // 4 ops × 2 sizes
  for (const auto& c : p.collectives) {
    EXPECT_EQ(c.gpus, 4);
    EXPECT_NEAR(c.busbw_bytes_per_s / 100e9, 1, 1e-12) << c.op;
    EXPECT_NEAR(c.algbw_bytes_per_s * c.time_s / c.bytes, 1, 1e-12);
  }
  ASSERT_EQ(p.layers.size(), 1u);
  EXPECT_DOUBLE_EQ(p.layers[0].fwd_time_s, 1e-3);
  EXPECT_DOUBLE_EQ(p.layers[0].bwd_time_s, 2e-3);
  EXPECT_DOUBLE_EQ(p.layers[0].flops, layer_train_flops(p.layers[0].shape));
  EXPECT_DOUBLE_EQ(p.layers[0].flops_per_s, p.layers[0].flops / 3e-3);
  // What gpuplan-bench writes, gpuplan reads.
  const CalibrationProfile back = parse_calibration(nlohmann::json::parse(calibration_json(p).dump()), "p.json");
  EXPECT_NEAR(*back.peak_flops_per_s(Precision::bf16) / 500e12, 1, 1e-12);
  EXPECT_NEAR(*back.hbm_bw_bytes_per_s() / 2e12, 1, 1e-12);
  EXPECT_EQ(back.layers.size(), 1u);
  EXPECT_EQ(back.collectives.size(), 8u);
  ASSERT_EQ(back.steps.size(), 1u);
  EXPECT_EQ(back.steps[0].shape.vocab, 32000);
  EXPECT_DOUBLE_EQ(back.steps[0].step_time_s, 40e-3);
}

TEST(Measure, StepsGetTheirMediansAndTheTrainingFlopCount) {
  FakeDevice device;
  SweepOptions s;
  s.memory_ops.clear();
  s.host_ops.clear();
  s.step_check = default_sweep(true, default_catalog()).step_check;
  s.steps = default_sweep(false, default_catalog()).steps;
  s.runs = 4;
  const Measurement m = measure_profile(device, s, header());
  ASSERT_EQ(m.profile.steps.size(), 1u);
  const StepPoint& p = m.profile.steps[0];
  EXPECT_EQ(p.shape.name(), "1b-class");
  EXPECT_EQ(p.precision, Precision::bf16);
  EXPECT_DOUBLE_EQ(p.fwd_time_s, 10e-3);  // the outlier is ignored
  EXPECT_DOUBLE_EQ(p.step_time_s, 40e-3);
  EXPECT_DOUBLE_EQ(p.flops, step_train_flops(p.shape));
  EXPECT_DOUBLE_EQ(p.flops_per_s, p.flops / 40e-3);  // the whole step's time, forward included once
  EXPECT_TRUE(m.profile.layers.empty());
}

TEST(Measure, L2BuffersAreFractionsOfTheDevicesL2InWhole64KiBBlocks) {
  FakeDevice device;
  device.l2_bytes = 50 * kMiB + 1000;  // an odd size rounds down
  SweepOptions s;
  s.memory_ops.clear();
  s.host_ops.clear();
  s.l2_fractions = {0.125, 0.5};
  s.runs = 3;
  const Measurement m = measure_profile(device, s, header());
  ASSERT_EQ(m.profile.memory_bandwidth.size(), 2u);
  EXPECT_DOUBLE_EQ(m.profile.memory_bandwidth[0].bytes, 6.25 * kMiB);  // 100 blocks of 64 KiB
  EXPECT_DOUBLE_EQ(m.profile.memory_bandwidth[1].bytes, 25 * kMiB);

  device.l2_bytes = 0;
  const Measurement none = measure_profile(device, s, header());
  EXPECT_TRUE(none.profile.memory_bandwidth.empty());
  ASSERT_EQ(none.notes.size(), 1u);
  EXPECT_NE(none.notes[0].find("no L2 size"), std::string::npos);
}

TEST(Measure, CollectiveSizesAreWholeElementsPerRankAndBusbwFollowsNcclTests) {
  FakeDevice device;
  device.gpus = 3;
  SweepOptions s;
  s.memory_ops.clear();
  s.host_ops.clear();
  s.collective_bytes = {1000, 4};  // 1000 → 996 (83 fp32 per rank); 4 < 12 bytes: nothing to send
  s.runs = 3;
  const Measurement m = measure_profile(device, s, header());
  ASSERT_EQ(m.profile.collectives.size(), 4u);
  for (const auto& c : m.profile.collectives) {
    EXPECT_DOUBLE_EQ(c.bytes, 996);
    // busbw / algbw: all_reduce 2·2/3, the others 2/3.
    EXPECT_NEAR(c.busbw_bytes_per_s / c.algbw_bytes_per_s, c.op == "all_reduce" ? 4.0 / 3 : 2.0 / 3, 1e-12);
  }
  EXPECT_EQ(device.collective_bytes_seen.size(), 4u);
}

TEST(Measure, OneGpuAndOldGpusSkipWithANote) {
  FakeDevice device;
  device.gpus = 1;
  device.compute_capability = 80;
  const Measurement m = measure_profile(device, default_sweep(true, default_catalog()), header());
  EXPECT_TRUE(m.profile.collectives.empty());
  EXPECT_FALSE(m.profile.peak_flops_per_s(Precision::fp8));
  EXPECT_TRUE(m.profile.peak_flops_per_s(Precision::tf32));
  ASSERT_EQ(m.notes.size(), 2u);  // once each, not once per shape
  EXPECT_NE(m.notes[0].find("cublaslt fp8 GEMMs not measured: fp8 needs sm_89"), std::string::npos) << m.notes[0];
  EXPECT_NE(m.notes[1].find("one GPU"), std::string::npos) << m.notes[1];
}

TEST(Measure, AWrongResultWritesNoProfile) {
  for (const char* what : {"memory", "gemm", "collective", "layer", "step"}) {
    FakeDevice device;
    device.wrong = what;
    const std::string error = measure_error(device, default_sweep(true, default_catalog()));
    EXPECT_NE(error.find("wrong result ("), std::string::npos) << what << ": " << error;
  }
  FakeDevice device;
  device.wrong = "gemm";
  EXPECT_NE(measure_error(device, default_sweep(true, default_catalog())).find("wrong result (max relative error 0.5"),
            std::string::npos);
}

TEST(Measure, TheSmallLayerIsCheckedBeforeAnyLayerIsTimed) {
  FakeDevice device;
  const SweepOptions s = default_sweep(true, default_catalog());
  measure_profile(device, s, header());
  const auto check = std::find(device.calls.begin(), device.calls.end(), "check tiny-check");
  const auto timed = std::find(device.calls.begin(), device.calls.end(), "layer 1b-class");
  ASSERT_NE(check, device.calls.end());
  EXPECT_LT(check, timed);

  FakeDevice broken;
  broken.wrong = "layer_check";
  const std::string error = measure_error(broken, s);
  EXPECT_NE(error.find("transformer layer check on 'tiny-check' failed (forward: RMS error 0.4)"), std::string::npos)
      << error;
  EXPECT_EQ(std::count(broken.calls.begin(), broken.calls.end(), "layer 1b-class"), 0);
}

TEST(Measure, TheSmallStepIsCheckedBeforeAnyStepIsTimed) {
  FakeDevice device;
  const SweepOptions s = default_sweep(true, default_catalog());
  measure_profile(device, s, header());
  const auto check = std::find(device.calls.begin(), device.calls.end(), "check step tiny-step-check");
  const auto timed = std::find(device.calls.begin(), device.calls.end(), "step 1b-class-2-layers");
  ASSERT_NE(check, device.calls.end());
  ASSERT_NE(timed, device.calls.end());
  EXPECT_LT(check, timed);

  FakeDevice broken;
  broken.wrong = "step_check";
  const std::string error = measure_error(broken, s);
  EXPECT_NE(error.find("training step check on 'tiny-step-check' failed (loss 6.9 against"), std::string::npos)
      << error;
  EXPECT_EQ(std::count(broken.calls.begin(), broken.calls.end(), "step 1b-class-2-layers"), 0);

  // A shape the device cannot run is refused before anything runs on it.
  SweepOptions odd = s;
  odd.steps[0].vocab = 32001;
  FakeDevice fresh;
  EXPECT_NE(measure_error(fresh, odd)
                .find("training step '1b-class-2-layers': vocab (32001) must be a positive multiple "
                      "of 16"),
            std::string::npos)
      << measure_error(fresh, odd);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// The whole pipeline without a GPU: the fake's full sweep, written and read back, then set
// beside the predictions. The fake runs every GEMM at a flat 500 TFLOP/s, which the tile/wave
// shape model does not expect at small shapes; calibrating with the profile's own shape curve
// (each point predicted from the others) must bring the GEMM predictions closer than the
// reference ceiling and shape model alone, and every figure must be finite.
TEST(Measure, ValidateCalibrationReadsWhatTheSweepWrites) {
  FakeDevice device;
  const Measurement m = measure_profile(device, default_sweep(false, default_catalog()), header());
  CalibrationProfile p = parse_calibration(nlohmann::json::parse(calibration_json(m.profile).dump()), "fake.json");
  const CalibrationValidation v = validate_calibration(p, default_catalog());
  ASSERT_GT(v.gemms.size(), 20u);
  for (const GemmCheck& g : v.gemms) {
    EXPECT_TRUE(std::isfinite(g.before_flops_per_s) && g.before_flops_per_s > 0);
    EXPECT_TRUE(std::isfinite(g.after_flops_per_s) && g.after_flops_per_s > 0);
  }
  for (const auto& [group, before] : v.gemm_before.summaries()) {
    for (const auto& [group_after, after] : v.gemm_after.summaries()) {
      if (group_after == group) {
        EXPECT_LT(after.median_abs_pct, before.median_abs_pct) << group;
      }
    }
  }
  ASSERT_EQ(v.layers.size(), p.layers.size());
  ASSERT_EQ(v.steps.size(), p.steps.size());
  for (const StepCheck& s : v.steps) {
    EXPECT_TRUE(std::isfinite(s.kernel_after_s) && s.kernel_after_s > 0);
    EXPECT_GT(s.train_before_s, 0);
  }
  EXPECT_EQ(v.collectives.size(), p.collectives.size());
  EXPECT_FALSE(to_text(v).empty());
}

}  // namespace
}  // namespace gpuplan
