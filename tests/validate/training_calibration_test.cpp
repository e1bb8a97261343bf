// `gpuplan calibrate training`: on runs made by a known "truth" (the catalog with a faster
// GEMM fraction and a shorter host time per kernel, and a larger allocator reserve), fitting
// three runs of one GPU moves the prediction of the five others towards the truth; the file
// round-trips through `train --calibration`; bad cells exit 2 naming the row and the column.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "calibration/training_calibration_file.h"
#include "test_util.h"

namespace gpuplan {
namespace training_calibration_test {

// A Llama-3.2-1B-shaped model (transformers config.json keys).
constexpr const char* kConfig = R"({"model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 16,
  "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 8192, "vocab_size": 128256,
  "max_position_embeddings": 131072, "tie_word_embeddings": true, "rms_norm_eps": 1e-5})";

// The truth: a hand-written calibration file (the format `calibrate training` writes).
constexpr const char* kTruth = R"({"schema": "gpuplan-training-calibration/1", "runs": "truth", "rows": 0,
  "efficiency": [{"id": "hopper", "constants": {"gemm.peak_fraction.bf16": {"catalog": 0.58, "fitted": 0.72},
                                                "runtime_memory.fragmentation_fraction": {"catalog": 0.05, "fitted": 0.15}}}],
  "frameworks": [{"id": "pytorch", "constants": {"kernel.launch_us": {"catalog": 60, "fitted": 15}}}]})";

struct RunSpec {
  const char* id;
  int seq;
  const char* elementwise;
};
const std::vector<RunSpec> kFit = {{"r1", 1024, "eager"}, {"r2", 4096, "fused"}, {"r3", 8192, "eager"}};
const std::vector<RunSpec> kHeldOut = {
    {"h1", 2048, "eager"}, {"h2", 2048, "fused"}, {"h3", 1024, "fused"}, {"h4", 4096, "eager"}, {"h5", 8192, "fused"}};

std::vector<std::string> train_args(const std::string& config, const RunSpec& r) {
  return {"train", "--model", config, "--gpu", "h100-sxm", "--gpus", "1", "--framework", "pytorch", "--seq-len",
          std::to_string(r.seq), "--global-batch", "1", "--elementwise", r.elementwise, "--allow-longer-context",
          "--json"};
}

nlohmann::json train(std::vector<std::string> args, const std::string& calibration = "") {
  if (!calibration.empty()) args.insert(args.end(), {"--calibration", calibration});
  const auto r = testing::run(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

std::string header() {
  return "id,source,gpu,num_gpus,framework,layers,hidden,heads,kv_heads,ffn_hidden,vocab,tied_embeddings,seq_len,"
         "micro_batch,global_batch_seqs,recompute,precision,elementwise,measured_step_time_s,measured_peak_reserved_gib\n";
}

std::string row(const RunSpec& r, double step_s, double peak_gib) {
  return std::string(r.id) + ",own,h100-sxm,1,pytorch,16,2048,32,8,8192,128256,true," + std::to_string(r.seq) +
         ",1,1,none,bf16," + r.elementwise + "," + std::to_string(step_s) + "," + std::to_string(peak_gib) + "\n";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

TEST(CalibrateTraining, ThreeRunsOfOneGpuImproveTheOthers) {
  const auto dir = testing::scratch_dir("calibrate-training");
  const std::string config = testing::write_file(dir / "config.json", kConfig).string();
  const std::string truth = testing::write_file(dir / "truth.json", kTruth).string();
  std::string csv = header();
  for (const RunSpec& r : kFit) {
    const nlohmann::json t = train(train_args(config, r), truth);
    const double reserved = t["memory_per_gpu_bytes"].get<double>() - t["memory"]["runtime_bytes"].get<double>();
    csv += row(r, t["step_time_s"].get<double>(), reserved / (1024.0 * 1024 * 1024));
  }
  const std::string runs = testing::write_file(dir / "runs.csv", csv).string();
  const std::string out = (dir / "cal.json").string();
  const auto c = testing::run({"calibrate", "training", runs, "--out", out, "--json"});
  ASSERT_EQ(c.code, 0) << c.err << c.out;
  const auto j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j["runs"].size(), 3u);
  // Constants no run can see are refused: no fp8 run, no TP.
  const std::string refused = j["calibration"]["refused"].dump();
  EXPECT_NE(refused.find("gemm.peak_fraction.fp8"), std::string::npos) << refused;
  EXPECT_NE(refused.find("overlap.tp_comm_fraction"), std::string::npos) << refused;
  // The runs' own leave-one-row-out error is better than the catalog's.
  EXPECT_LT(j["step_error"]["leave_one_row_out"]["median_abs_pct"].get<double>(),
            j["step_error"]["catalog"]["median_abs_pct"].get<double>());

  // The five runs it has not seen: their truth, the catalog's prediction, the calibrated one.
  std::vector<double> before, after, mem_before, mem_after;
  for (const RunSpec& r : kHeldOut) {
    const nlohmann::json t = train(train_args(config, r), truth);
    const nlohmann::json plain = train(train_args(config, r));
    const nlohmann::json calibrated = train(train_args(config, r), out);
    const double measured = t["step_time_s"].get<double>();
    before.push_back(std::fabs(plain["step_time_s"].get<double>() / measured - 1));
    after.push_back(std::fabs(calibrated["step_time_s"].get<double>() / measured - 1));
    const double peak = t["memory_per_gpu_bytes"].get<double>();
    mem_before.push_back(std::fabs(plain["memory_per_gpu_bytes"].get<double>() / peak - 1));
    mem_after.push_back(std::fabs(calibrated["memory_per_gpu_bytes"].get<double>() / peak - 1));
  }
  EXPECT_GT(median(before), 0.10);                 // the truth is far from the catalog
  EXPECT_LT(median(after), 0.5 * median(before));  // and the calibration recovers most of it
  EXPECT_GT(median(mem_before), 0.05);
  EXPECT_LT(median(mem_after), 0.01);              // one constant, exactly identifiable
}

TEST(CalibrateTraining, TheFileRoundTripsAndOtherGpusAreUntouched) {
  const auto dir = testing::scratch_dir("calibrate-training-file");
  const std::string truth = testing::write_file(dir / "truth.json", kTruth).string();
  const auto parsed = read_training_calibration(truth);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->efficiencies.at(0).id, "hopper");
  // An A100 plan under another framework than the calibrated one: the file has nothing for
  // either, so the numbers are the catalog's, and the answer says why.
  const std::vector<std::string> a100 = {"train", "--model", "llama3.1-8b", "--gpu", "a100-sxm-80gb", "--gpus", "8",
                                         "--zero", "3", "--seq-len", "4096", "--json"};
  const nlohmann::json plain = train(a100);
  const nlohmann::json with = train(a100, truth);
  EXPECT_DOUBLE_EQ(plain["step_time_s"].get<double>(), with["step_time_s"].get<double>());
  EXPECT_NE(with.dump().find("nothing changed"), std::string::npos);
}

TEST(CalibrateTraining, BadCellsNameTheRowAndTheColumn) {
  const auto dir = testing::scratch_dir("calibrate-training-bad");
  const std::string base = header();
  struct Case {
    std::string csv;
    std::vector<std::string> says;
  };
  const std::vector<Case> cases = {
      {base + "r1,own,h100-sxm,1,pytorch,16,two thousand,32,8,8192,128256,true,2048,1,1,none,bf16,eager,0.5,40\n",
       {"row 'r1'", "column 'hidden'", "two thousand"}},
      {base + "r1,own,h100-sxm,1,pytorch,16,2048,32,8,8192,128256,true,2048,1,1,none,bf16,eager,-0.5,40\n",
       {"row 'r1'", "column 'measured_step_time_s'", "greater than 0"}},
      {base + "r1,own,h100-sxm,1,pytorch,16,2048,32,8,8192,128256,true,2048,1,1,none,bf16,eager,0.5,40\n"
              "r2,own,h100-sxm,1,jax,16,2048,32,8,8192,128256,true,2048,1,1,none,bf16,eager,0.5,40\n",
       {"row 'r2'", "column 'framework'", "jax", "pytorch"}},
      {base + "r1,own,h100-sxm,1,pytorch,16,2048,32,8,8192,128256,maybe,2048,1,1,none,bf16,eager,0.5,40\n",
       {"row 'r1'", "column 'tied_embeddings'", "true or false"}},
      {base + "r1,own,b9000,1,pytorch,16,2048,32,8,8192,128256,true,2048,1,1,none,bf16,eager,0.5,40\n",
       {"row 'r1'", "column 'gpu'", "b9000"}},
  };
  int i = 0;
  for (const Case& c : cases) {
    const std::string runs = testing::write_file(dir / ("runs" + std::to_string(i++) + ".csv"), c.csv).string();
    const auto r = testing::run({"calibrate", "training", runs, "--out", (dir / "x.json").string()});
    EXPECT_EQ(r.code, 2) << c.csv;
    for (const std::string& s : c.says) EXPECT_NE(r.err.find(s), std::string::npos) << s << " in: " << r.err;
  }
}

}  // namespace training_calibration_test
}  // namespace gpuplan
