// The sweep spec parser: every mistake is named by its key path, with the fix.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "sweep/spec.h"

namespace gpuplan {
namespace {

const char* kGoodSpec = R"({
  "description": "two models on two GPUs",
  "models": ["llama3-8b", "configs/my-model/config.json"],
  "gpus": ["h100-sxm", "a100-sxm-80gb"],
  "gpu_counts": [8, 16],
  "global_batch": 64,
  "seq_len": 4096,
  "precision": "fp8",
  "objective": "cost",
  "top_k": 2,
  "output": {"csv": "out/result.csv", "json": "/tmp/result.json"},
  "search": {"threads": 2, "time_limit_s": 1.5, "no_prune": true, "usd_per_gpu_hour": 2.5}
})";

// The message of the Error that parsing `text` throws ("" when it parses).
std::string spec_error(const std::string& text) {
  try {
    parse_sweep_spec(text, "studies/s.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string spec_with(const std::string& key_and_value) {
  return R"({"models": ["llama3-8b"], "gpus": ["h100-sxm"], "gpu_counts": [8], "global_batch": 64, "seq_len": 4096)" +
         (key_and_value.empty() ? "" : ", " + key_and_value) + "}";
}

TEST(SweepSpec, ParsesEveryKey) {
  const SweepSpec s = parse_sweep_spec(kGoodSpec, "studies/s.json");
  EXPECT_EQ(s.description, "two models on two GPUs");
  EXPECT_EQ(s.models, (std::vector<std::string>{"llama3-8b", "configs/my-model/config.json"}));
  EXPECT_EQ(s.gpus, (std::vector<std::string>{"h100-sxm", "a100-sxm-80gb"}));
  EXPECT_EQ(s.gpu_counts, (std::vector<int>{8, 16}));
  EXPECT_EQ(s.global_batch, 64);
  EXPECT_EQ(s.seq_len, 4096);
  EXPECT_EQ(s.precision, Precision::fp8);
  EXPECT_EQ(s.objective, Objective::cost);
  EXPECT_EQ(s.top_k, 2);
  // Relative output paths are anchored at the spec's folder; absolute ones are kept.
  EXPECT_EQ(s.out_csv, "studies/out/result.csv");
  EXPECT_EQ(s.out_json, "/tmp/result.json");
  EXPECT_EQ(s.search.threads, 2);
  EXPECT_DOUBLE_EQ(s.search.time_limit_s, 1.5);
  EXPECT_FALSE(s.search.prune);
  EXPECT_DOUBLE_EQ(s.search.usd_per_gpu_hour, 2.5);
}

TEST(SweepSpec, DefaultsMatchGpuplanSearch) {
  const SweepSpec s = parse_sweep_spec(spec_with(""), "s.json");
  EXPECT_EQ(s.precision, Precision::bf16);
  EXPECT_EQ(s.objective, Objective::time);
  EXPECT_EQ(s.top_k, 3);
  EXPECT_TRUE(s.search.prune);
  EXPECT_EQ(s.search.threads, 0);
  EXPECT_TRUE(s.out_csv.empty());
  EXPECT_TRUE(s.out_json.empty());
}

TEST(SweepSpec, UnknownKeyNamesItsPathAndTheKnownKeys) {
  std::string e = spec_error(spec_with(R"("seq_length": 4096)"));
  EXPECT_NE(e.find("studies/s.json"), std::string::npos) << e;
  EXPECT_NE(e.find("'seq_length': unknown key"), std::string::npos) << e;
  EXPECT_NE(e.find("seq_len"), std::string::npos) << e;
  EXPECT_NE(e.find("gpu_counts"), std::string::npos) << e;

  e = spec_error(spec_with(R"("search": {"thread": 4})"));
  EXPECT_NE(e.find("'search.thread': unknown key"), std::string::npos) << e;
  EXPECT_NE(e.find("in 'search'"), std::string::npos) << e;
  EXPECT_NE(e.find("threads, time_limit_s, no_prune, usd_per_gpu_hour"), std::string::npos) << e;

  e = spec_error(spec_with(R"("output": {"csv": "a.csv", "xlsx": "a.xlsx"})"));
  EXPECT_NE(e.find("'output.xlsx': unknown key"), std::string::npos) << e;
  EXPECT_NE(e.find("csv, json"), std::string::npos) << e;
}

TEST(SweepSpec, MissingKeyIsNamed) {
  const std::string e =
      spec_error(R"({"models": ["llama3-8b"], "gpus": ["h100-sxm"], "gpu_counts": [8], "seq_len": 1})");
  EXPECT_NE(e.find("'global_batch': missing"), std::string::npos) << e;
}

TEST(SweepSpec, WrongTypesAndValuesAreNamed) {
  EXPECT_NE(spec_error(spec_with(R"("top_k": 0)")).find("'top_k': must be a whole number of at least 1"),
            std::string::npos);
  EXPECT_NE(spec_error(spec_with(R"("top_k": 2.5)")).find("'top_k'"), std::string::npos);
  EXPECT_NE(spec_error(spec_with(R"("precision": "int4")")).find("'precision': 'int4' is not one of"),
            std::string::npos);
  EXPECT_NE(spec_error(spec_with(R"("objective": "speed")")).find("'objective': 'speed' is not one of time, cost, mfu"),
            std::string::npos);
  EXPECT_NE(spec_error(spec_with(R"("search": {"no_prune": 1})")).find("'search.no_prune': must be true or false"),
            std::string::npos);
  EXPECT_NE(spec_error(spec_with(R"("search": {"time_limit_s": -1})")).find("'search.time_limit_s'"),
            std::string::npos);
  EXPECT_NE(spec_error(spec_with(R"("output": "a.csv")")).find("'output': must be a JSON object"), std::string::npos);
  std::string e =
      spec_error(R"({"models": [], "gpus": ["h100-sxm"], "gpu_counts": [8], "global_batch": 1, "seq_len": 1})");
  EXPECT_NE(e.find("'models': must be a non-empty array"), std::string::npos) << e;
  e = spec_error(R"({"models": ["a"], "gpus": ["h100-sxm"], "gpu_counts": [8, -2], "global_batch": 1, "seq_len": 1})");
  EXPECT_NE(e.find("'gpu_counts[1]': must be a whole number"), std::string::npos) << e;
  EXPECT_NE(spec_error("[1, 2]").find("must be a JSON object"), std::string::npos);
}

TEST(SweepSpec, RepeatedEntriesAndKeysAreErrors) {
  std::string e = spec_error(R"({"models": ["a"], "gpus": ["h100-sxm"], "gpu_counts": [8, 16, 8], "global_batch": 1,
                             "seq_len": 1})");
  EXPECT_NE(e.find("'gpu_counts[2]': repeats gpu_counts[0]"), std::string::npos) << e;
  e = spec_error(R"({"models": ["a"], "gpus": ["h100-sxm"], "gpu_counts": [8], "global_batch": 1, "global_batch": 2,
                 "seq_len": 1})");
  EXPECT_NE(e.find("duplicate key 'global_batch'"), std::string::npos) << e;
  e = spec_error(spec_with(R"("search": {"threads": 1, "threads": 2})"));
  EXPECT_NE(e.find("duplicate key 'search.threads'"), std::string::npos) << e;
  // A number beyond double's range (found by fuzz/json_inputs_fuzz): an error, not a crash.
  e = spec_error(R"({"models": ["a"], "gpus": ["h100-sxm"], "gpu_counts": [8], "global_batch": 1e999, "seq_len": 1})");
  EXPECT_NE(e.find("not valid JSON"), std::string::npos) << e;
}

TEST(SweepSpec, SyntaxErrorNamesTheFile) {
  const std::string e = spec_error(R"({"models": ["a"],})");
  EXPECT_NE(e.find("studies/s.json: not valid JSON"), std::string::npos) << e;
}

TEST(SweepSpec, ModelEntriesThatAreFiles) {
  EXPECT_FALSE(is_model_path("llama3.1-8b"));
  EXPECT_TRUE(is_model_path("config.json"));
  EXPECT_TRUE(is_model_path("models/qwen"));
  SweepSpec s;
  s.file = "studies/s.json";
  EXPECT_EQ(spec_relative_path(s, "../m/config.json"), "m/config.json");
  EXPECT_EQ(spec_relative_path(s, "/abs/config.json"), "/abs/config.json");
}

TEST(SweepSpec, UnreadableFileIsNamed) {
  try {
    load_sweep_spec("/nonexistent/sweep.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/sweep.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuplan
