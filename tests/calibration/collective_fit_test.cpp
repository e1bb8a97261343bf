// The collective model calibrated by measured rows (calibration/collective_fit.h): the factors
// recover a known change, apply to the right constants, refuse another system's log, and reach
// `train` and `infer` with the rows they came from.
#include "calibration/collective_fit.h"

#include <gtest/gtest.h>

#include "calibration/nccl_tests_log.h"
#include "catalog_util.h"
#include "core/error.h"
#include "core/units.h"
#include "test_util.h"

namespace gpuplan {
namespace {

CollectiveTopology h100_node() {
  const Catalog& c = testing::cat();
  return make_collective_topology(c, c.system("dgx-h100"), nullptr, default_collective_params(c));
}

// A profile "measured" on `truth`: the model's own times there, for ops and sizes given.
CalibrationProfile measured_on(const CollectiveTopology& truth, const std::vector<double>& sizes) {
  CalibrationProfile p;
  p.file = "synthetic.log";
  p.tool = "nccl-tests";
  int line = 10;
  for (const char* op : {"all_reduce", "all_gather"}) {
    for (double bytes : sizes) {
      CollectiveRequest r;
      r.op = *profile_collective_op(op);
      r.bytes = bytes;
      r.gpus_per_domain = 8;
      const CollectiveEstimate e = estimate_collective(r, truth);
      CollectivePoint pt;
      pt.op = op;
      pt.gpus = 8;
      pt.bytes = bytes;
      pt.time_s = e.time_s;
      pt.line = line++;
      p.collectives.push_back(pt);
    }
  }
  return p;
}

TEST(CollectiveFit, ApplyScalesBandwidthsAndEveryLatency) {
  CollectiveTopology t = h100_node();
  const CollectiveTopology before = t;
  CollectiveCalibration c;
  c.bw_scale[0] = 0.5;
  c.latency_scale = 2;
  apply_collective_calibration(t, c);
  // 0.5 x each level-0 bandwidth; 2 x each latency (e.g. ring LL base 6.6 us -> 13.2 us).
  EXPECT_DOUBLE_EQ(t.levels[0].bw_bytes_per_s, 0.5 * before.levels[0].bw_bytes_per_s);
  EXPECT_DOUBLE_EQ(t.levels[0].reduction_bw_bytes_per_s, 0.5 * before.levels[0].reduction_bw_bytes_per_s);
  EXPECT_DOUBLE_EQ(t.levels[0].reduction_busbw_bytes_per_s, 0.5 * before.levels[0].reduction_busbw_bytes_per_s);
  EXPECT_NEAR(t.ring_base_s[0], 13.2e-6, 1e-12);
  EXPECT_DOUBLE_EQ(t.levels[0].ring_hop_s[2], 2 * before.levels[0].ring_hop_s[2]);
  EXPECT_DOUBLE_EQ(t.nvls_latency_s, 2 * before.nvls_latency_s);
  EXPECT_DOUBLE_EQ(t.p2p_latency_s, 2 * before.p2p_latency_s);
  // Levels not named keep their bandwidth.
  EXPECT_DOUBLE_EQ(t.levels[1].bw_bytes_per_s, before.levels[1].bw_bytes_per_s);
}

TEST(CollectiveFit, RecoversASlowerScaleUpAndASlowerStack) {
  CollectiveTopology truth = h100_node();
  CollectiveCalibration known;
  known.bw_scale[0] = 0.8;
  known.latency_scale = 1.5;
  apply_collective_calibration(truth, known);
  const CollectiveTopology model = h100_node();
  const CalibrationProfile p = measured_on(truth, {4 * kKiB, 8 * kKiB, 1 * kGiB, 4 * kGiB, 16 * kGiB});
  const CollectiveCalibration fit = fit_collective_calibration(p, model);
  // The Simple pipeline fill is part of the fixed cost and itself scales with 1/bandwidth, so the
  // recovered factors are close, not exact.
  EXPECT_NEAR(fit.bw_scale[0], 0.8, 0.03);
  EXPECT_NEAR(fit.latency_scale, 1.5, 0.1);
  ASSERT_EQ(fit.applied.size(), 2u);
  EXPECT_NE(fit.applied[0].find("log lines"), std::string::npos);
  // The calibrated model reproduces the measured 4 GiB AllReduce within 2%.
  CollectiveTopology calibrated = model;
  apply_collective_calibration(calibrated, fit);
  CollectiveRequest r;
  r.bytes = 4 * kGiB;
  r.gpus_per_domain = 8;
  EXPECT_NEAR(estimate_collective(r, calibrated).time_s / estimate_collective(r, truth).time_s, 1.0, 0.02);
}

TEST(CollectiveFit, OnlyBandwidthRowsLeaveTheLatencyAsShipped) {
  const CollectiveTopology model = h100_node();
  const CalibrationProfile p = measured_on(model, {1 * kGiB, 4 * kGiB});
  const CollectiveCalibration fit = fit_collective_calibration(p, model);
  EXPECT_NEAR(fit.bw_scale[0], 1.0, 0.01);
  EXPECT_EQ(fit.latency_scale, 1.0);
  ASSERT_FALSE(fit.skipped.empty());
  EXPECT_NE(fit.skipped[0].find("latency"), std::string::npos);
}

TEST(CollectiveFit, AnotherSystemsLogIsRefused) {
  CollectiveTopology truth = h100_node();
  CollectiveCalibration slow;
  slow.bw_scale[0] = 0.1;  // ten times slower than an H100 node: not this system
  apply_collective_calibration(truth, slow);
  EXPECT_THROW(fit_collective_calibration(measured_on(truth, {1 * kGiB, 4 * kGiB}), h100_node()), Error);
  CalibrationProfile empty;
  EXPECT_THROW(fit_collective_calibration(empty, h100_node()), Error);
}

TEST(CollectiveFit, TrainAndInferTakeAnNcclTestsLog) {
  const std::string log = testing::source_dir() + "/tests/fixtures/nccl-tests/h100-2x8-allreduce-1x8-allgather.log";
  const auto train = testing::run({"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "16",
                                   "--calibration", log});
  ASSERT_EQ(train.code, 0) << train.err;
  EXPECT_NE(train.out.find("calibration applied: collective bandwidth of scale-up"), std::string::npos) << train.out;
  EXPECT_NE(train.out.find("log lines"), std::string::npos);
  const auto infer =
      testing::run({"infer", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--tp", "8", "--calibration", log});
  ASSERT_EQ(infer.code, 0) << infer.err;
  EXPECT_NE(infer.out.find("calibration applied: collective bandwidth"), std::string::npos) << infer.out;
}

TEST(CollectiveFit, TrainRefusesALogFromAnotherSystem) {
  // The DGX H100 fixture on an 8 x L40S PCIe server: its NVLink-speed rows put the PCIe
  // scale-up at ~15x the model's, so the log is refused (exit 2) rather than applied.
  const std::string log = testing::source_dir() + "/tests/fixtures/nccl-tests/h100-2x8-allreduce-1x8-allgather.log";
  const auto r = testing::run({"train", "--model", "llama3.1-8b", "--gpu", "l40s", "--gpus", "8", "--calibration", log});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("another system"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuplan
