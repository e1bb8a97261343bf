// `gpuplan models` and `gpuplan model`, end to end and in process. The zoo is loaded on its
// own (--no-builtin --catalog data/models) so these tests do not hang on the rest of data/.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

std::vector<std::string> with_zoo(std::vector<std::string> args) {
  args.insert(args.begin(), {"--no-builtin", "--catalog", testing::source_dir() + "/data/models"});
  return args;
}

TEST(ModelsCli, ListsTheZoo) {
  const auto r = run(with_zoo({"models"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("llama3.1-405b"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("256/8+1"), std::string::npos) << r.out;  // DeepSeek-V3 experts/top-k+shared
  EXPECT_NE(r.out.find("128/MLA"), std::string::npos) << r.out;
}

TEST(ModelsCli, ListJsonHasEveryModel) {
  const auto r = run(with_zoo({"models", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["count"].get<int>(), 30);
  bool found = false;
  for (const auto& m : j["models"]) found = found || m["id"] == "mixtral-8x7b";
  EXPECT_TRUE(found);
}

TEST(ModelsCli, ModelJsonKeysAndValues) {
  const auto r = run(with_zoo({"model", "Llama 3.1 8B", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["id"], "llama3.1-8b");
  EXPECT_DOUBLE_EQ(j["total_params"].get<double>(), 8030261248);
  EXPECT_DOUBLE_EQ(j["active_params"].get<double>(), 8030261248);
  EXPECT_DOUBLE_EQ(j["embedding_params"].get<double>(), 1050673152);
  EXPECT_EQ(j["seq_len"], 4096);  // the default
  EXPECT_DOUBLE_EQ(j["forward_flops_per_token"].get<double>(), 16083320832);
  EXPECT_DOUBLE_EQ(j["train_flops_per_token"].get<double>(), 3 * 16083320832.0);
  EXPECT_DOUBLE_EQ(j["weight_bytes"]["bf16"].get<double>(), 2 * 8030261248.0);
  EXPECT_DOUBLE_EQ(j["weight_bytes"]["fp8"].get<double>(), 8030261248);
  EXPECT_DOUBLE_EQ(j["weight_bytes"]["int4"].get<double>(), 0.5 * 8030261248.0);
  EXPECT_DOUBLE_EQ(j["kv_cache_bytes_per_token"]["bf16"].get<double>(), 131072);
  EXPECT_DOUBLE_EQ(j["kv_cache_bytes_per_token"]["fp8"].get<double>(), 65536);
  EXPECT_EQ(j["layer_params"]["dense"]["count"], 32);
}

TEST(ModelsCli, SeqLenAndSlidingWindow) {
  const auto r = run(with_zoo({"model", "gpt-oss-120b", "--seq-len", "8192", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["seq_len"], 8192);
  // 18 full layers × 2,048 B × 8,192 tokens + 18 sliding layers × 2,048 B × 128 tokens.
  EXPECT_DOUBLE_EQ(j["kv_cache_bytes_per_sequence"]["bf16"].get<double>(), 18 * 2048 * 8192.0 + 18 * 2048 * 128.0);
  EXPECT_EQ(j["sliding_layers"], 18);
  EXPECT_NEAR(j["active_params_without_input_embedding"].get<double>() / 1e9, 5.13, 0.01);
}

TEST(ModelsCli, DefaultSeqLenIsCappedAtTheModelsContext) {
  const auto r = run(with_zoo({"model", "gpt2", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["seq_len"], 1024);
}

TEST(ModelsCli, TextShowsBreakdownAndPublishedComparison) {
  const auto r = run(with_zoo({"model", "deepseek-v3"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("671.0B (published 671.0B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("70,272 B"), std::string::npos) << r.out;  // MLA KV per token, bf16
  EXPECT_NE(r.out.find("MoE (x58)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("multi-token prediction"), std::string::npos) << r.out;
}

TEST(ModelsCli, ReadsAHuggingFaceConfigWithoutTheCatalog) {
  const std::string path = testing::source_dir() + "/tests/workload/fixtures/mixtral-8x7b-v0.1.json";
  const auto r = run({"--no-builtin", "model", path, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model_type"], "mixtral");
  EXPECT_DOUBLE_EQ(j["total_params"].get<double>(), 46702792704);
}

TEST(ModelsCli, BadInputExitsTwo) {
  const auto unknown = run(with_zoo({"model", "llama3.1-8x"}));
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("unknown model 'llama3.1-8x'"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("llama3.1-8b"), std::string::npos) << unknown.err;
  EXPECT_EQ(run(with_zoo({"model", "llama3.1-8b", "--seq-len", "0"})).code, 2);
  EXPECT_EQ(run(with_zoo({"model", "llama3.1-8b", "--seq-len", "-5"})).code, 2);
  EXPECT_EQ(run(with_zoo({"model", "llama3.1-8b", "--seq-len", "lots"})).code, 2);
  const auto missing = run({"model", "no/such/config.json"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;
  auto dir = testing::scratch_dir("models-cli");
  testing::write_file(dir / "config.json", R"({"model_type": "llama", "hidden_size": 64})");
  const auto partial = run({"model", (dir / "config.json").string()});
  EXPECT_EQ(partial.code, 2);
  EXPECT_NE(partial.err.find("missing field 'num_hidden_layers'"), std::string::npos) << partial.err;
}

// Every Hugging Face fixture config (tests/workload/fixtures/) is plannable end to end: `train`
// and `infer` (TP 2: every fixture's head count divides) answer on H100s with finite, positive times, for the families
// added in issue 18 (Phi-3/4, Gemma 2/3, Qwen2-MoE, Llama 4, Falcon) as for the older ones.
TEST(ModelsCli, EveryFixtureConfigTrainsAndServes) {
  const std::string dir = testing::source_dir() + "/tests/workload/fixtures/";
  for (const char* name : {"llama-3.1-8b", "mistral-7b-v0.1", "mixtral-8x7b-v0.1", "qwen2.5-7b", "qwen3-0.6b",
                           "qwen3-30b-a3b", "deepseek-v2-lite", "gpt2", "gpt-oss-20b", "mpt-7b", "minitron-8b",
                           "phi-3-mini-4k", "phi-4", "gemma-2-9b", "gemma-3-1b", "gemma-3-4b-it",
                           "qwen1.5-moe-a2.7b", "qwen2-57b-a14b", "llama-4-scout-17b-16e",
                           "llama-4-maverick-17b-128e", "falcon-7b", "falcon-7b-refinedwebmodel",
                           "falcon-40b-refinedweb", "jamba-v0.1", "nemotron-h-8b"}) {
    const std::string config = dir + name + ".json";
    auto r = run({"train", "--model", config, "--gpu", "h100-sxm", "--gpus", "8", "--seq-len", "1024", "--global-batch",
                  "64", "--json"});
    ASSERT_EQ(r.code, 0) << name << ": " << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["step_time_s"].get<double>(), 0) << name;
    EXPECT_LT(j["step_time_s"].get<double>(), 1e6) << name;
    // TP must divide the heads (Falcon-7B's 71: TP 1) and the weights must fit (Llama 4
    // Maverick's 400B: fp8 on 8 GPUs; Scout's 108B: 4 GPUs).
    const std::string n = name;
    const std::string tp = n == "falcon-7b" || n == "falcon-7b-refinedwebmodel" ? "1"
                           : n == "llama-4-maverick-17b-128e"                   ? "8"
                           : n == "llama-4-scout-17b-16e"                       ? "4"
                                                                                : "2";
    std::vector<std::string> args{"infer", "--model", config, "--gpu", "h100-sxm", "--tp", tp,
                                  "--input-len", "512", "--output-len", "64", "--json"};
    if (n == "llama-4-maverick-17b-128e") args.insert(args.end(), {"--weights", "fp8"});
    r = run(args);
    ASSERT_EQ(r.code, 0) << name << ": " << r.out << r.err;
    j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j["feasible"].get<bool>()) << name << ": " << r.out;
    EXPECT_GT(j["tpot_s"].get<double>(), 0) << name;
    EXPECT_GT(j["ttft_s"].get<double>(), 0) << name;
  }
}

}  // namespace
}  // namespace gpuplan
