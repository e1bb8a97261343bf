// --calibration in the cost models: measured / reference scaling of the fitted GEMM rates, the
// measured collective curve in place of the model, and the CLI wiring of train, infer and
// collective. Profiles are built in code (no GPU needed) and written with the real writer.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "calibration/calibrate.h"
#include "calibration/profile.h"
#include "catalog/catalog.h"
#include "core/error.h"
#include "calibration/calibration_scale.h"
#include "calibration/collective_calibration.h"
#include "plan/evaluate.h"
#include "catalog_util.h"
#include "test_util.h"

namespace gpuplan {
namespace {

using testing::cat;

GemmPoint gemm_8k(Precision p, double tflops) {
  GemmPoint g;
  g.kernel = "cublaslt";
  g.precision = p;
  g.m = g.n = g.k = 8192;
  g.flops_per_s = tflops * 1e12;
  g.time_s = 2 * g.m * g.n * g.k / g.flops_per_s;
  return g;
}

CollectivePoint coll(double bytes, double time_s, int gpus = 8) {
  CollectivePoint c;
  c.op = "all_reduce";
  c.gpus = gpus;
  c.bytes = bytes;
  c.time_s = time_s;
  c.algbw_bytes_per_s = bytes / time_s;
  c.busbw_bytes_per_s = c.algbw_bytes_per_s * 2 * (gpus - 1) / gpus;
  return c;
}

CalibrationProfile profile(const std::string& gpu, std::vector<GemmPoint> gemms) {
  CalibrationProfile p;
  p.file = "test-profile.json";
  p.gpu_id = gpu;
  p.gpu_name = "NVIDIA H100 80GB HBM3";
  p.sm_count = 132;
  p.driver = "13.0";
  p.cuda = "13.0";
  p.tool = "gpuplan-bench test";
  p.command = "gpuplan-bench --gpu " + gpu;
  p.date = "2026-11-22T00:00:00Z";
  p.host = "test";
  p.gemm = std::move(gemms);
  return p;
}

// H100 SXM reference (catalog [achievable_tflops]): 794.5 TFLOP/s BF16. A unit measuring
// 754.775 (95%) runs every GEMM at 0.95 × the fitted rate; FP8, not measured, inherits 0.95.
TEST(CalibrationScale, MeasuredOverReferenceHandChecked) {
  const Gpu& h100 = cat().gpu("h100-sxm");
  ASSERT_DOUBLE_EQ(h100.achievable_flops_per_s[index_of(Precision::bf16)], 794.5e12);
  const CalibrationScale s = calibration_scale(h100, profile("h100-sxm", {gemm_8k(Precision::bf16, 754.775)}));
  EXPECT_NEAR(s.gemm[index_of(Precision::bf16)], 0.95, 1e-12);
  EXPECT_NEAR(s.gemm[index_of(Precision::fp8)], 0.95, 1e-12);
  EXPECT_NEAR(s.attention, 0.95, 1e-12);
  EXPECT_DOUBLE_EQ(s.gemm[index_of(Precision::fp64)], 1);  // not a tensor precision
  EXPECT_DOUBLE_EQ(s.memory_bw, 1);
  ASSERT_FALSE(s.applied.empty());
  EXPECT_NE(s.applied.front().find("×0.950"), std::string::npos) << s.applied.front();
}

// A unit at the reference changes nothing; a slower one makes a GEMM-bound step slower, by
// no more than the factor (communication and memory-bound ops do not scale).
TEST(CalibrationScale, TrainingStepScalesWithTheFactor) {
  const Gpu& h100 = cat().gpu("h100-sxm");
  const ModelSpec& m = cat().model("llama3-8b");
  TrainContext base = make_train_context(cat(), m, h100, nullptr, nullptr);
  Plan plan;
  plan.micro_batch = 1;
  plan.global_batch = 8;
  plan.seq_len = 4096;
  plan.recompute = Recompute::full;
  const double t0 = evaluate(base, plan).step_time_s;
  ASSERT_GT(t0, 0);
  TrainContext same = base;
  apply_calibration_scale(same.device, calibration_scale(h100, profile("h100-sxm", {gemm_8k(Precision::bf16, 794.5)})));
  EXPECT_NEAR(evaluate(same, plan).step_time_s, t0, 1e-12 * t0);
  TrainContext slow = base;
  apply_calibration_scale(slow.device,
                          calibration_scale(h100, profile("h100-sxm", {gemm_8k(Precision::bf16, 715.05)})));
  const double t1 = evaluate(slow, plan).step_time_s;
  EXPECT_GT(t1, t0 * 1.05);        // mostly GEMMs: most of the 1/0.9
  EXPECT_LE(t1, t0 / 0.9 * (1 + 1e-9));  // never more than all of it
}

TEST(CalibrationScale, OtherGpuAndUnreferencedFiguresAreSaid) {
  const Gpu& h100 = cat().gpu("h100-sxm");
  try {
    calibration_scale(h100, profile("a100-sxm-80gb", {gemm_8k(Precision::bf16, 250)}));
    FAIL() << "accepted a profile of another GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a100-sxm-80gb"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gpuplan-bench --gpu h100-sxm"), std::string::npos) << e.what();
  }
  // FP16 has no reference for the H100: reported as skipped, and nothing else changes.
  CalibrationProfile p = profile("h100-sxm", {gemm_8k(Precision::fp16, 700)});
  BandwidthPoint bw;
  bw.op = "read";
  bw.bytes = 1 << 30;
  bw.bw_bytes_per_s = 3.0e12;
  bw.time_s = bw.bytes / bw.bw_bytes_per_s;
  p.memory_bandwidth.push_back(bw);
  const CalibrationScale s = calibration_scale(h100, p);
  EXPECT_DOUBLE_EQ(s.gemm[index_of(Precision::fp16)], 1);
  EXPECT_DOUBLE_EQ(s.gemm[index_of(Precision::bf16)], 1);
  ASSERT_EQ(s.skipped.size(), 1u);
  EXPECT_NE(s.skipped[0].find("no reference"), std::string::npos) << s.skipped[0];
  // The H100's HBM reference is the read its committed profile measured (3,087 GB/s): applied.
  EXPECT_NEAR(s.memory_bw, 3000.0 / 3087.0, 1e-12);
  // A GPU without an HBM reference (the A100 SXM): said, not applied.
  CalibrationProfile a100 = profile("a100-sxm-80gb", {});
  a100.memory_bandwidth.push_back(bw);
  const CalibrationScale sa = calibration_scale(cat().gpu("a100-sxm-80gb"), a100);
  EXPECT_DOUBLE_EQ(sa.memory_bw, 1);
  ASSERT_EQ(sa.skipped.size(), 1u);
  EXPECT_NE(sa.skipped[0].find("HBM bandwidth measured at 3000 GB/s"), std::string::npos) << sa.skipped[0];
}

BandwidthPoint hbm(const std::string& op, double gb_per_s, double bytes = 1 << 30) {
  BandwidthPoint b;
  b.op = op;
  b.bytes = bytes;
  b.bw_bytes_per_s = gb_per_s * 1e9;
  b.time_s = bandwidth_bytes_moved(op, bytes) / b.bw_bytes_per_s;
  return b;
}

// H100 PCIe reference ([achievable_memory_bw]): a read at 1,942 GB/s (gpu-benches' gpu-stream,
// 1 GiB, full occupancy). The best read of the profile, 1,844.9 GB/s = 0.95 × 1,942, gives ×0.95;
// the smaller read and the faster copy are not it (a copy is never compared with a read).
TEST(CalibrationScale, HbmBandwidthMeasuredOverReferenceOfTheSameOp) {
  const Gpu& pcie = cat().gpu("h100-pcie");
  ASSERT_DOUBLE_EQ(pcie.achievable_memory_bw_bytes_per_s, 1.942e12);
  ASSERT_EQ(pcie.achievable_memory_bw_op, "read");
  CalibrationProfile p = profile("h100-pcie", {});
  // The 16 MiB read fits in the 50 MB L2 (below 4 × L2 = 200 MB): an L2 figure, never the HBM's.
  p.memory_bandwidth = {hbm("read", 1700, 256 << 20), hbm("read", 1844.9), hbm("read", 4000, 16 << 20),
                        hbm("copy", 1990), hbm("l2_read", 9000, 8 << 20)};
  const CalibrationScale s = calibration_scale(pcie, p);
  EXPECT_NEAR(s.memory_bw, 0.95, 1e-12);
  EXPECT_TRUE(s.skipped.empty());
  ASSERT_EQ(s.applied.size(), 1u);
  EXPECT_NE(s.applied[0].find("HBM bandwidth ×0.950: measured read 1845 vs reference 1942 GB/s"), std::string::npos)
      << s.applied[0];
  EXPECT_DOUBLE_EQ(s.gemm[index_of(Precision::bf16)], 1);  // no GEMM measured: GEMMs untouched

  // The factor reaches the training roofline's bandwidth, and nothing else.
  RooflineDevice dev;
  dev.memory_bw_bytes_per_s = 2e12 * 0.8;
  dev.gemm_flops_per_s.fill(1e14);
  apply_calibration_scale(dev, s);
  EXPECT_NEAR(dev.memory_bw_bytes_per_s, 2e12 * 0.8 * 0.95, 1);
  EXPECT_DOUBLE_EQ(dev.gemm_flops_per_s[index_of(Precision::bf16)], 1e14);
}

// The reference is a read; a profile with only copies has nothing to compare: skipped, with why.
TEST(CalibrationScale, HbmBandwidthSkippedWithoutThePointOfTheReferenceOp) {
  CalibrationProfile p = profile("h100-pcie", {});
  p.memory_bandwidth = {hbm("copy", 1700), hbm("write", 1800)};
  const CalibrationScale s = calibration_scale(cat().gpu("h100-pcie"), p);
  EXPECT_DOUBLE_EQ(s.memory_bw, 1);
  EXPECT_TRUE(s.applied.empty());
  ASSERT_EQ(s.skipped.size(), 1u);
  EXPECT_NE(s.skipped[0].find("HBM bandwidth measured at 1700 GB/s, not applied"), std::string::npos) << s.skipped[0];
  EXPECT_NE(s.skipped[0].find("reference for h100-pcie is a read bandwidth"), std::string::npos) << s.skipped[0];
  // Reads only over buffers that fit in L2: they measure the L2, so nothing to compare either.
  p.memory_bandwidth = {hbm("read", 4000, 16 << 20), hbm("copy", 3000, 64 << 20)};
  const CalibrationScale l2 = calibration_scale(cat().gpu("h100-pcie"), p);
  EXPECT_DOUBLE_EQ(l2.memory_bw, 1);
  ASSERT_EQ(l2.skipped.size(), 1u);
  EXPECT_NE(l2.skipped[0].find("smaller than 200 MB (4 × h100-pcie's L2)"), std::string::npos) << l2.skipped[0];
  // No HBM point at all (a collectives-only profile): nothing to say.
  EXPECT_TRUE(calibration_scale(cat().gpu("h100-pcie"), profile("h100-pcie", {})).skipped.empty());
}

// `gpuplan gpu --calibration` too takes the HBM figure from buffers of at least 4 × L2 only: the
// H100 SXM's 16 MiB read is served by its 50 MB L2.
TEST(CalibrationScale, L2SizedBuffersNeverSetTheHbmBandwidth) {
  const Gpu& h100 = cat().gpu("h100-sxm");
  EXPECT_DOUBLE_EQ(hbm_min_buffer_bytes(h100), 200e6);
  CalibrationProfile p = profile("h100-sxm", {});
  p.memory_bandwidth = {hbm("read", 6000, 16 << 20), hbm("read", 3000), hbm("copy", 2900, 4096.0 * (1 << 20))};
  EXPECT_DOUBLE_EQ(apply_calibration(h100, p).memory_bw_bytes_per_s, 3000e9);
  EXPECT_DOUBLE_EQ(*p.hbm_bw_bytes_per_s(), 6000e9);  // with no floor, the L2 figure would win
}

// Decode streams the weights: an H100 PCIe reading 10% below the reference serves fewer tokens
// per second, by no more than 10%; the notes say so.
TEST(CalibrationCli, InferTakesTheBandwidthFactor) {
  const auto dir = testing::scratch_dir("cost-calibration-scale-bw-cli");
  CalibrationProfile p = profile("h100-pcie", {});
  p.memory_bandwidth = {hbm("read", 1942 * 0.9)};
  const std::string file = testing::write_file(dir / "h100-pcie.json", calibration_json(p).dump(2)).string();
  const std::vector<std::string> args = {"infer", "--model", "llama3-8b", "--gpu", "h100-pcie", "--concurrency", "8",
                                         "--json"};
  auto with = args;
  with.insert(with.end(), {"--calibration", file});
  const auto r = testing::run(with);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto plain = nlohmann::json::parse(testing::run(args).out);
  EXPECT_NE(j["calibration"]["notes"].dump().find("HBM bandwidth ×0.900"), std::string::npos) << j["calibration"];
  const double slow = j["output_tokens_per_s"].get<double>();
  const double fast = plain["output_tokens_per_s"].get<double>();
  EXPECT_LT(slow, fast * 0.97);         // mostly bandwidth-bound
  EXPECT_GE(slow, fast * 0.9 * (1 - 1e-9));  // never more than the factor
}

// 1 MiB in 10 us and 4 MiB in 40 us: 2 MiB is halfway in log-log, 20 us. Beyond the largest
// size the model's shape is anchored on it; another GPU count has no curve.
TEST(CollectiveCalibration, LogLogInterpolationAndAnchoredModel) {
  CalibrationProfile p = profile("h100-sxm", {});
  const double mib = 1024.0 * 1024;
  p.collectives = {coll(mib, 10e-6), coll(4 * mib, 40e-6)};
  const auto model = [](double bytes) { return 5e-6 + bytes / 400e9; };
  std::string why;
  auto c = calibrated_collective(p, CollectiveOp::all_reduce, 8, 2 * mib, model, why);
  ASSERT_TRUE(c.has_value()) << why;
  EXPECT_NEAR(c->time_s, 20e-6, 1e-12);
  EXPECT_NEAR(c->busbw_bytes_per_s, 2 * mib / 20e-6 * 1.75, 1e-3);
  c = calibrated_collective(p, CollectiveOp::all_reduce, 8, 4 * mib, model, why);
  EXPECT_DOUBLE_EQ(c->time_s, 40e-6);
  EXPECT_EQ(c->how, "measured");
  c = calibrated_collective(p, CollectiveOp::all_reduce, 8, 16 * mib, model, why);
  EXPECT_NEAR(c->time_s, 40e-6 * model(16 * mib) / model(4 * mib), 1e-15);
  EXPECT_FALSE(calibrated_collective(p, CollectiveOp::all_reduce, 4, 2 * mib, model, why).has_value());
  EXPECT_NE(why.find("4 GPUs"), std::string::npos) << why;
  EXPECT_FALSE(calibrated_collective(p, CollectiveOp::broadcast, 8, 2 * mib, model, why).has_value());
}

TEST(CalibrationCli, TrainInferAndCollectiveTakeTheProfile) {
  const auto dir = testing::scratch_dir("cost-calibration-scale-cli");
  CalibrationProfile p = profile("h100-sxm", {gemm_8k(Precision::bf16, 754.775)});
  const double mib = 1024.0 * 1024;
  p.collectives = {coll(16 * mib, 120e-6), coll(64 * mib, 400e-6)};
  const std::string file = testing::write_file(dir / "h100.json", calibration_json(p).dump(2)).string();

  auto r = testing::run({"train", "--model", "llama3-8b", "--gpu", "h100-sxm", "--seq-len", "4096", "--calibration", file});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("calibration applied: bf16 GEMM ×0.950"), std::string::npos) << r.out;

  r = testing::run({"infer", "--model", "llama3-8b", "--gpu", "h100-sxm", "--concurrency", "64", "--calibration", file,
                    "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["calibration"]["notes"].empty());
  const auto plain = nlohmann::json::parse(
      testing::run({"infer", "--model", "llama3-8b", "--gpu", "h100-sxm", "--concurrency", "64", "--json"}).out);
  EXPECT_LT(j["output_tokens_per_s"].get<double>(), plain["output_tokens_per_s"].get<double>());

  r = testing::run({"collective", "--op", "allreduce", "--bytes", "32MiB", "--gpus", "8", "--system", "dgx-h100",
                    "--calibration", file});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("interpolated between measured 16.0 MiB and 64.0 MiB"), std::string::npos) << r.out;

  r = testing::run({"train", "--model", "llama3-8b", "--gpu", "a100-sxm-80gb", "--seq-len", "4096", "--calibration",
                    file});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not 'a100-sxm-80gb'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuplan
