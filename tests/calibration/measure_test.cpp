// gpuplan-bench's sweep against a fake device: medians, FLOP and byte counts, a profile the
// loader accepts, and no profile when a kernel is wrong.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "calibration/measure.h"
#include "core/error.h"

namespace gpuplan {
namespace {

// A device with a fixed 2 TB/s memory system and 500 TFLOP/s for every GEMM; the run times
// carry one slow outlier (a clock ramp) that the median must ignore.
class FakeDevice final : public BenchDevice {
 public:
  bool wrong_gemm = false;
  BenchDeviceInfo info() const override { return {"Fake GPU", 100, "999.1", "13.0"}; }
  Timing time_memory(const std::string& op, double bytes, int runs) override {
    const double moved = op == "copy" ? 2 * bytes : bytes;
    return timings(moved / 2e12, runs);
  }
  Timing time_gemm(const std::string&, Precision, int m, int n, int k, int runs) override {
    Timing t = timings(2.0 * m * n * k / 500e12, runs);
    t.correct = !wrong_gemm;
    t.check = "max relative error 0.5 against the CPU reference";
    return t;
  }

 private:
  static Timing timings(double time_s, int runs) {
    Timing t;
    t.correct = true;
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

TEST(Measure, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(Measure, SweepGivesTheFakeDevicesFiguresAndALoadableProfile) {
  FakeDevice device;
  const CalibrationProfile p = measure_profile(device, default_sweep(true), header());
  EXPECT_EQ(p.gpu_name, "Fake GPU");
  ASSERT_FALSE(p.memory_bandwidth.empty());
  for (const auto& b : p.memory_bandwidth) EXPECT_NEAR(b.bw_bytes_per_s, 2e12, 1e3) << b.op;  // copy counted twice
  ASSERT_FALSE(p.gemm.empty());
  EXPECT_EQ(p.gemm.front().kernel, "wmma");
  for (const auto& g : p.gemm) EXPECT_NEAR(g.flops_per_s, 500e12, 1e3);
  // What gpuplan-bench writes, gpuplan reads.
  const CalibrationProfile back = parse_calibration(nlohmann::json::parse(calibration_json(p).dump()), "p.json");
  EXPECT_NEAR(*back.peak_flops_per_s(Precision::bf16), 500e12, 1e3);
  EXPECT_NEAR(*back.hbm_bw_bytes_per_s(), 2e12, 1e3);
}

TEST(Measure, AWrongKernelWritesNoProfile) {
  FakeDevice device;
  device.wrong_gemm = true;
  try {
    measure_profile(device, default_sweep(true), header());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("wrong result (max relative error 0.5"), std::string::npos) << e.what();
  }
}

TEST(Measure, FullSweepHoldsTheModelLayerShapes) {
  const SweepOptions s = default_sweep(false);
  const bool has_ffn = std::any_of(s.gemms.begin(), s.gemms.end(),
                                   [](const GemmShape& g) { return g.n == 28672 && g.k == 4096; });
  EXPECT_TRUE(has_ffn);
  EXPECT_DOUBLE_EQ(s.memory_bytes.back(), 4096.0 * 1024 * 1024);
}

}  // namespace
}  // namespace gpuplan
