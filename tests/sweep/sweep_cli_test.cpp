// `gpuplan sweep` end to end, in process (one rank): files written, bad names rejected with
// the spec's key and the nearest names, and the launcher detection the MPI path relies on.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sweep/transport.h"
#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A one-GPU-type spec in `dir`; `models` and `gpus` are JSON arrays.
std::filesystem::path spec_file(const std::filesystem::path& dir, const std::string& models, const std::string& gpus,
                                const std::string& extra = "") {
  return testing::write_file(dir / "spec.json", R"({"models": )" + models + R"(, "gpus": )" + gpus +
                                                    R"(, "gpu_counts": [1, 8], "global_batch": 16, "seq_len": 2048,
                                                    "top_k": 2)" +
                                                    extra + "}");
}

TEST(SweepCli, WritesBothFilesRelativeToTheSpec) {
  const auto dir = testing::scratch_dir("sweep-cli");
  // The model is a Hugging Face config.json, named relative to the spec's folder.
  std::filesystem::create_directories(dir / "models");
  std::filesystem::copy_file(testing::source_dir() + "/tests/workload/fixtures/llama-3.1-8b.json",
                             dir / "models" / "llama-3.1-8b.json");
  const auto spec = spec_file(dir, R"(["models/llama-3.1-8b.json", "gpt2"])", R"(["H100 SXM"])",
                              R"(, "output": {"csv": "out/r.csv", "json": "out/r.json"})");
  const auto r = run({"sweep", spec.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("4 cells"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no plan fits"), std::string::npos) << r.out;  // 8B on one GPU
  EXPECT_NE(r.out.find("wrote"), std::string::npos) << r.out;
  const std::string csv = read(dir / "out" / "r.csv");
  EXPECT_EQ(csv.rfind("cell,model,gpu,", 0), 0u) << csv;
  EXPECT_NE(csv.find("llama-3.1-8b,h100-sxm"), std::string::npos) << csv;
  const auto j = nlohmann::json::parse(read(dir / "out" / "r.json"));
  EXPECT_EQ(j["cells"], 4);
  EXPECT_EQ(j["results"][3]["model"], "gpt2");
  EXPECT_EQ(j["results"][3]["status"], "ok");
}

TEST(SweepCli, OverridesAndJsonSummary) {
  const auto dir = testing::scratch_dir("sweep-cli-json");
  const auto spec = spec_file(dir, R"(["gpt2"])", R"(["a100-sxm-80gb"])");
  const auto csv = dir / "elsewhere.csv";
  const auto r = run({"sweep", spec.string(), "--out-csv", csv.string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cells"], 2);
  EXPECT_EQ(j["ranks"], 1);
  EXPECT_EQ(j["per_rank"].size(), 1u);
  EXPECT_TRUE(j.contains("elapsed_s"));
  EXPECT_EQ(j["csv"], csv.string());
  EXPECT_TRUE(std::filesystem::exists(csv));
}

TEST(SweepCli, BadNamesExitTwoWithTheKeyAndTheNearestNames) {
  const auto dir = testing::scratch_dir("sweep-cli-bad");
  auto r = run({"sweep", spec_file(dir, R"(["gpt2"])", R"(["h100-sxm", "h10"])").string(), "--out-csv", "x.csv"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'gpus[1]'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean h100"), std::string::npos) << r.err;

  r = run({"sweep", spec_file(dir, R"(["gpt2", "llama3-8"])", R"(["h100-sxm"])").string(), "--out-csv", "x.csv"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'models[1]'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("llama3-8b"), std::string::npos) << r.err;

  // Two names of one GPU would make duplicate cells.
  r = run({"sweep", spec_file(dir, R"(["gpt2"])", R"(["h100-sxm", "H100 SXM"])").string(), "--out-csv", "x.csv"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'gpus[1]': 'H100 SXM' is GPU 'h100-sxm' again"), std::string::npos) << r.err;

  r = run({"sweep", spec_file(dir, R"(["gpt2"])", R"(["h100-sxm"])").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nothing to write"), std::string::npos) << r.err;

  r = run({"sweep", (dir / "missing.json").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;
}

TEST(SweepCli, DetectsTheLauncherFromTheEnvironment) {
  auto env = [](std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char* name) -> const char* {
      const auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  LaunchInfo l = detect_launch(env({}));
  EXPECT_EQ(l.size, 1);
  l = detect_launch(env({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "3"}}));
  EXPECT_EQ(l.size, 4);
  EXPECT_EQ(l.rank, 3);
  l = detect_launch(env({{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}}));
  EXPECT_EQ(l.size, 2);
  EXPECT_EQ(l.rank, 1);
  // `mpirun -np 1` and garbage are one process.
  EXPECT_EQ(detect_launch(env({{"OMPI_COMM_WORLD_SIZE", "1"}})).size, 1);
  EXPECT_EQ(detect_launch(env({{"OMPI_COMM_WORLD_SIZE", "2x"}})).size, 1);
}

}  // namespace
}  // namespace gpuplan
