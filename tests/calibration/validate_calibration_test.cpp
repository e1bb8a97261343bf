// Measured vs predicted for a calibration profile (`gpuplan validate calibration`): the bench
// layer's kernel list counted by hand, the kernel roofline before (reference ceilings) and after
// (measured, leave one out), the training evaluator beside it, collectives, and the CLI.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "calibration/bench_layer_cost.h"
#include "calibration/profile.h"
#include "calibration/step_layout.h"
#include "catalog/catalog.h"
#include "report/validation_report.h"
#include "test_util.h"

namespace gpuplan {
namespace {

LayerShape small_layer() {
  LayerShape s;
  s.name = "small";
  s.hidden = 128;
  s.heads = 4;
  s.kv_heads = 2;
  s.ffn = 256;
  s.seq = 64;
  s.batch = 2;
  return s;
}

GemmPoint gemm(double size, double tflops, Precision p = Precision::bf16) {
  GemmPoint g;
  g.kernel = "cublaslt";
  g.precision = p;
  g.m = g.n = g.k = size;
  g.flops_per_s = tflops * 1e12;
  g.time_s = 2 * size * size * size / g.flops_per_s;
  return g;
}

CalibrationProfile h100_profile() {
  CalibrationProfile p;
  p.file = "h100-test.json";
  p.gpu_id = "h100-sxm";
  p.gpu_name = "NVIDIA H100 80GB HBM3";
  p.sm_count = 132;
  p.driver = "13.0";
  p.cuda = "13.0";
  p.tool = "gpuplan-bench test";
  p.command = "gpuplan-bench --gpu h100-sxm";
  p.date = "2026-11-22T00:00:00Z";
  p.host = "test";
  p.gemm = {gemm(8192, 760), gemm(4096, 700)};
  return p;
}

// The bench layer's GEMMs are the training count's 6·W·T with the attention's full square
// (the unfused kernel computes all s × s scores): 12·b·heads·head_dim·s² instead of causal.
// Small layer: W = 128·256 (QKV) + 128·128 (out) + 3·128·256 (MLP) = 147,456; T = 128;
// 6WT = 113,246,208; 12·2·4·32·64² = 12,582,912.
TEST(BenchLayerKernels, GemmFlopsAreSixWtPlusTheFullAttentionSquare) {
  double flops = 0;
  int gemms = 0;
  for (const BenchKernel& k : bench_layer_kernels(small_layer())) {
    if (!k.gemm) continue;
    flops += 2 * k.m * k.n * k.k * k.count;
    ++gemms;
  }
  EXPECT_EQ(gemms, 18);  // 6 forward, 12 backward, as launched
  EXPECT_DOUBLE_EQ(flops, 113246208.0 + 12582912.0);
}

// Softmax forward reads the causal half of the fp32 scores and writes full bf16 rows:
// rows = 2·4·64 = 512; 512·65/2·4 + 512·64·2 = 66,560 + 65,536.
TEST(BenchLayerKernels, MemoryKernelsHandCounted) {
  const auto kernels = bench_layer_kernels(small_layer());
  const auto softmax = std::find_if(kernels.begin(), kernels.end(),
                                    [](const BenchKernel& k) { return std::string(k.name) == "softmax"; });
  ASSERT_NE(softmax, kernels.end());
  EXPECT_DOUBLE_EQ(softmax->bytes, 66560.0 + 65536.0);
  EXPECT_FALSE(softmax->backward);
  // SwiGLU forward: reads gate and up, writes the product: 3·T·F·2 bytes.
  const auto swiglu = std::find_if(kernels.begin(), kernels.end(),
                                   [](const BenchKernel& k) { return std::string(k.name) == "swiglu"; });
  EXPECT_DOUBLE_EQ(swiglu->bytes, 3.0 * 128 * 256 * 2);
}

StepShape small_step() {
  StepShape st;
  st.layer = small_layer();
  st.layers = 2;
  st.vocab = 512;
  return st;
}

double gemm_flops(const std::vector<BenchKernel>& kernels) {
  double flops = 0;
  for (const BenchKernel& k : kernels) flops += k.gemm ? 2 * k.m * k.n * k.k * k.count : 0;
  return flops;
}

// The step's GEMMs: every layer's, plus the LM head's 6·V·H·T (forward T×V×H, then dX and dW).
// AdamW moves 30 bytes a parameter (fp32 master, gradient, m, v read; master, m, v written;
// the bf16 copy written).
TEST(BenchLayerKernels, StepIsTheLayersPlusHeadLossAndAdamW) {
  const StepShape st = small_step();
  const auto kernels = bench_step_kernels(st);
  EXPECT_DOUBLE_EQ(gemm_flops(kernels), 2 * gemm_flops(bench_layer_kernels(st.layer)) + 6.0 * 512 * 128 * 128);
  const auto adamw = std::find_if(kernels.begin(), kernels.end(), [](const BenchKernel& k) {
    return std::string(k.name) == "adamw";
  });
  ASSERT_NE(adamw, kernels.end());
  EXPECT_DOUBLE_EQ(adamw->bytes, 30.0 * static_cast<double>(step_layout(st).total));
  EXPECT_TRUE(adamw->backward);
}

TEST(BenchLayerKernels, MoreBandwidthIsNeverSlower) {
  RooflineDevice dev;
  dev.sm_count = 132;
  dev.gemm_flops_per_s.fill(700e12);
  dev.memory_bw_bytes_per_s = 2e12;
  const auto kernels = bench_layer_kernels(small_layer());
  const BenchPrediction slow = predict_bench_kernels(dev, kernels);
  dev.memory_bw_bytes_per_s = 3e12;
  const BenchPrediction fast = predict_bench_kernels(dev, kernels);
  EXPECT_LT(fast.memory_s, slow.memory_s);
  EXPECT_LE(fast.fwd_s + fast.bwd_s, slow.fwd_s + slow.bwd_s);
  EXPECT_NEAR(slow.fwd_s + slow.bwd_s, slow.gemm_s + slow.memory_s, 1e-15);
}

// Hopper's shape model (tiles 128×256 on 132 SMs, k_half 128) for 8192³: 2,048 tiles in 16
// waves (2048/2112) × 8192/8320.
double eff_8192() { return 2048.0 / 2112 * 8192 / 8320; }

TEST(ValidateCalibration, GemmBeforeIsTheReferenceCeilingAndAfterLeavesThePointOut) {
  const CalibrationValidation v = validate_calibration(h100_profile(), default_catalog());
  ASSERT_EQ(v.gemms.size(), 2u);
  const GemmCheck& big = v.gemms[0];
  // Before: the catalog's 794.5 TFLOP/s BF16 reference × the shape model.
  EXPECT_NEAR(big.before_flops_per_s / 1e12, 794.5 * eff_8192(), 1e-6);
  // After, leaving 8192³ out: the only other point (700) is the ceiling, with no curve.
  EXPECT_NEAR(big.after_flops_per_s / 1e12, 700 * eff_8192(), 1e-6);
  // The group summaries count each point once.
  EXPECT_EQ(v.gemm_before.summaries().at(0).second.count, 2);
  EXPECT_EQ(v.gemm_after.summaries().at(0).second.count, 2);
}

TEST(ValidateCalibration, OnePointOfAPrecisionHasNoLeaveOneOutPrediction) {
  CalibrationProfile p = h100_profile();
  p.gemm.push_back(gemm(8192, 1300, Precision::fp8));
  const CalibrationValidation v = validate_calibration(p, default_catalog());
  ASSERT_EQ(v.gemms.size(), 3u);
  EXPECT_EQ(v.gemms[2].after_flops_per_s, 0);
  EXPECT_GT(v.gemms[2].before_flops_per_s, 0);
}

TEST(ValidateCalibration, LayerRowsSetBothModelsBesideTheMeasurement) {
  CalibrationProfile p = h100_profile();
  LayerShape shape = small_layer();
  shape.name = "1b-class";
  shape.hidden = 2048;
  shape.heads = 32;
  shape.kv_heads = 8;
  shape.ffn = 8192;
  shape.seq = 2048;
  shape.batch = 1;
  LayerPoint l;
  l.shape = shape;
  l.fwd_time_s = 1.2e-3;
  l.bwd_time_s = 2.4e-3;
  l.flops = layer_train_flops(shape);
  l.flops_per_s = l.flops / 3.6e-3;
  p.layers = {l};
  const CalibrationValidation v = validate_calibration(p, default_catalog());
  ASSERT_EQ(v.layers.size(), 1u);
  const LayerCheck& c = v.layers[0];
  EXPECT_DOUBLE_EQ(c.measured_s(), 3.6e-3);
  // Measured ceilings (760) below the reference (794.5): the kernel model slows down after.
  EXPECT_GT(c.kernel_after_s, c.kernel_before_s);
  EXPECT_GT(c.kernel_gemm_share, 0);
  EXPECT_LT(c.kernel_gemm_share, 1);
  // The training evaluator with --calibration scales its GEMMs by 760/794.5: slower, by less
  // than 1/0.957 overall.
  EXPECT_GT(c.train_after_s, c.train_before_s);
  EXPECT_LT(c.train_after_s, c.train_before_s * 794.5 / 760 * (1 + 1e-9));
  EXPECT_FALSE(v.model_before.empty());
}

TEST(ValidateCalibration, StepRowsUseTheStepModel) {
  CalibrationProfile p = h100_profile();
  StepPoint st;
  st.shape = small_step();
  st.shape.layer.name = "tiny-step";
  st.fwd_time_s = 1e-3;
  st.step_time_s = 3e-3;
  st.flops = step_train_flops(st.shape);
  st.flops_per_s = st.flops / st.step_time_s;
  p.steps = {st};
  const CalibrationValidation v = validate_calibration(p, default_catalog());
  ASSERT_EQ(v.steps.size(), 1u);
  EXPECT_GT(v.steps[0].kernel_before_s, 0);
  EXPECT_GT(v.steps[0].train_before_s, 0);
  EXPECT_NE(to_text(v).find("Training steps"), std::string::npos);
  EXPECT_EQ(to_json(v)["steps"][0]["name"], "tiny-step");
}

CollectivePoint all_reduce(int gpus, double bytes, double time_s) {
  CollectivePoint c;
  c.op = "all_reduce";
  c.gpus = gpus;
  c.bytes = bytes;
  c.time_s = time_s;
  c.algbw_bytes_per_s = bytes / time_s;
  c.busbw_bytes_per_s = c.algbw_bytes_per_s * collective_bus_factor("all_reduce", gpus);
  return c;
}

TEST(ValidateCalibration, CollectivesAreModelledOnTheGpusSystemAndMultiNodeOnesSaid) {
  CalibrationProfile p = h100_profile();
  p.collectives = {all_reduce(8, 64.0 * (1 << 20), 400e-6), all_reduce(16, 64.0 * (1 << 20), 800e-6)};
  const CalibrationValidation v = validate_calibration(p, default_catalog());
  ASSERT_EQ(v.collectives.size(), 2u);
  EXPECT_GT(v.collectives[0].model_s, 0);
  EXPECT_EQ(v.collectives[1].model_s, 0);
  EXPECT_FALSE(v.system_id.empty());
  bool said = false;
  for (const auto& n : v.notes) said = said || n.find("more GPUs than one") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(ValidateCalibrationCli, TextJsonAndErrors) {
  const auto dir = testing::scratch_dir("validate-calibration-cli");
  const std::string file = testing::write_file(dir / "p.json", calibration_json(h100_profile()).dump(2)).string();
  auto r = testing::run({"validate", "calibration", file});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("GEMM rate error before calibration"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[achievable_tflops]"), std::string::npos) << r.out;
  r = testing::run({"validate", "calibration", file, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpu"], "h100-sxm");
  EXPECT_EQ(j["gemm"].size(), 2u);
  EXPECT_TRUE(j["summary"].contains("layers_and_steps_after"));
  r = testing::run({"validate", "calibration", (dir / "missing.json").string()});
  EXPECT_EQ(r.code, 2);
  r = testing::run({"validate", "calibration", file, "--system", "no-such-system"});
  EXPECT_EQ(r.code, 2) << "an unknown --system is an error even when the profile has no collectives";
  EXPECT_NE(r.err.find("no-such-system"), std::string::npos) << r.err;
}

// search takes --calibration like train: the same factor and shape curve, said in the output.
TEST(ValidateCalibrationCli, SearchTakesTheProfile) {
  const auto dir = testing::scratch_dir("search-calibration-cli");
  const std::string file = testing::write_file(dir / "p.json", calibration_json(h100_profile()).dump(2)).string();
  const std::vector<std::string> args = {"search", "--model",        "llama3.1-8b", "--gpu",     "h100-sxm", "--gpus",
                                         "8",      "--global-batch", "64",          "--seq-len", "4096",     "--top",
                                         "1",      "--json"};
  auto with = args;
  with.insert(with.end(), {"--calibration", file});
  const auto plain = testing::run(args);
  const auto r = testing::run(with);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["calibration"].dump().find("shape curve from 2 measured shapes"), std::string::npos) << j["calibration"];
  // 760 measured against the 794.5 reference: no plan gets faster.
  EXPECT_GT(j["best"]["step_time_s"].get<double>(),
            nlohmann::json::parse(plain.out)["best"]["step_time_s"].get<double>());
}

}  // namespace
}  // namespace gpuplan
