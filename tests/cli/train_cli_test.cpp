// gpuplan train | memory | rooflines | validate training, end to end in process.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

TEST(TrainCli, JsonHasTheIssueKeys) {
  const auto r = run({"train", "--model", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tp", "4", "--pp", "4",
                      "--vp", "5", "--sp", "--zero", "1", "--micro-batch", "1", "--global-batch", "128", "--seq-len",
                      "8192", "--precision", "fp8", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu",
                          "memory_per_gpu_bytes", "fits", "breakdown"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["plan"]["dp"].get<int>(), 4);
  EXPECT_EQ(j["system"].get<std::string>(), "dgx-h100");
  EXPECT_GT(j["mfu"].get<double>(), 0.1);
  EXPECT_LT(j["mfu"].get<double>(), 0.9);
  EXPECT_TRUE(j["breakdown"].contains("tp_comm_exposed_s"));
  // TP 4 inside the 8-GPU node; PP (stride 16) across nodes.
  EXPECT_EQ(j["placement"][0]["group"].get<std::string>(), "TP");
  EXPECT_EQ(j["placement"][0]["domains"].get<int>(), 1);
  EXPECT_EQ(j["placement"][4]["domains"].get<int>(), 4);
}

TEST(TrainCli, TextNamesTheBottleneckAndInfeasiblePlansSayWhy) {
  auto r = run({"train", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "8", "--global-batch", "64"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("bottleneck:"), std::string::npos) << r.out;
  r = run({"train", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "6", "--tp", "3"});
  ASSERT_EQ(r.code, 0) << r.err;  // infeasible is a value, not an error
  EXPECT_NE(r.out.find("infeasible: TP 3"), std::string::npos) << r.out;
  EXPECT_EQ(run({"train", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "10", "--tp", "4"}).code, 2);
  EXPECT_EQ(run({"train", "--model", "llama3-8b", "--gpu", "h10"}).code, 2);
}

TEST(TrainCli, MemoryBreakdownAndRuleOfThumb) {
  auto r = run({"memory", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "1", "--seq-len", "4096"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("DOES NOT FIT"), std::string::npos) << r.out;  // 16 B/param × 8B > 80 GB
  r = run({"memory", "--rule-of-thumb"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("~56 GB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("16 bytes per parameter"), std::string::npos) << r.out;
  r = run({"memory", "--rule-of-thumb", "--json"});
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["rows"][0]["states_bytes"].get<double>(), 7e9 * 16);
}

TEST(TrainCli, RooflinesJson) {
  const auto r = run({"rooflines", "--fabric", "dgx-superpod-h100", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["levels"][1]["dp_min_tokens_per_gpu"].get<double>(), 1236, 3);
  EXPECT_NEAR(j["levels"][0]["tp_max"].get<double>(), 8.5, 0.05);
}

TEST(TrainCli, ValidateTrainingReadsTheSchema) {
  const auto dir = testing::scratch_dir("validate-training");
  const std::string csv =
      "id,source,model,model_ref,arch,layers,hidden,heads,kv_heads,ffn_hidden,vocab,seq_len,gpu,num_gpus,"
      "gpus_per_node,tp,pp,vp,dp,cp,ep,sequence_parallel,zero_stage,dp_shard,micro_batch,global_batch_seqs,"
      "recompute,precision,measured_step_time_s,measured_tokens_per_s_per_gpu\n"
      "a,Test,,,dense,32,4096,32,32,16384,50368,2048,h100-sxm,8,8,1,1,1,8,1,1,unknown,3,8,6,48,none,bf16,1.15,\n"
      "b,Test,,,dense,32,4096,32,32,16384,50368,2048,h100-sxm,8,8,1,1,1,8,1,1,0,unknown,8,,48,unknown,bf16,,10000\n"
      "c,Test,,,dense,32,4096,32,32,16384,50368,2048,nope,8,8,1,1,1,8,1,1,0,3,8,6,48,none,bf16,1.0,\n";
  testing::write_file(dir / "runs.csv", csv);
  const auto r = run({"validate", "training", (dir / "runs.csv").string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_TRUE(j["rows"][0]["evaluated"].get<bool>());
  EXPECT_NE(j["rows"][0]["chosen"].get<std::string>().find("sp"), std::string::npos);
  EXPECT_TRUE(j["rows"][1]["measured_derived"].get<bool>());  // from tokens/s per GPU
  EXPECT_NE(j["rows"][1]["chosen"].get<std::string>().find("mb"), std::string::npos);
  EXPECT_FALSE(j["rows"][2]["evaluated"].get<bool>());  // unknown GPU: kept, not an error
  EXPECT_EQ(j["overall"]["rows"].get<int>(), 2);
  EXPECT_EQ(run({"validate", "training", (dir / "missing.csv").string()}).code, 2);
}

}  // namespace
}  // namespace gpuplan
