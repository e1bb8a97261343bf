// Strict input for the training questions (train, memory, search): each bad value exits 2 with
// a message naming the flag and the value (and the fix), never a silent replacement or an
// "infeasible" plan. One row per case; add a row for every new check.
#include <algorithm>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::BadInput;
using testing::run;

std::vector<std::string> train(std::vector<std::string> extra) {
  std::vector<std::string> a{"train", "--model", "llama3-8b", "--gpu", "h100-sxm"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::vector<std::string> search(std::vector<std::string> extra) {
  std::vector<std::string> a{"search", "--model", "llama3-8b", "--gpu", "h100-sxm"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST(StrictTrainInput, EveryBadValueExitsTwoNamingTheFlagAndValue) {
  const std::vector<BadInput> cases = {
      {train({"--gpus", "0"}), {"--gpus 0", "at least 1", "omit --gpus"}},
      {train({"--gpus=-8"}), {"--gpus -8", "at least 1"}},
      {train({"--seq-len", "0"}), {"--seq-len 0", "at least 1"}},
      // llama3-8b's max_position_embeddings is 8192 (data/models/llama3-8b.toml).
      {train({"--seq-len", "16384"}), {"--seq-len 16384", "context length 8192", "--allow-longer-context"}},
      {train({"--zero", "5"}), {"--zero 5", "use 0"}},
      {train({"--micro-batch", "0"}), {"--micro-batch 0", "at least 1"}},
      // 8 replicas × micro-batch 3 = 24 does not divide 64; 64 / 8 = 8 has divisors 2 and 4
      // beside 3, and the nearest multiples of 24 are 48 and 72.
      {train({"--gpus", "8", "--global-batch", "64", "--micro-batch", "3"}),
       {"--global-batch 64", "--micro-batch 3", "--micro-batch 2 or 4", "--global-batch 48 or 72"}},
      // dp 8 does not divide 60: no micro-batch works, only another global batch.
      {train({"--gpus", "8", "--global-batch", "60"}), {"--global-batch 60", "--global-batch 56 or 64"}},
      {train({"--tp", "0"}), {"--tp 0", "at least 1"}},
      {train({"--pp", "0"}), {"--pp 0", "at least 1"}},
      {train({"--dp=-2"}), {"--dp -2", "at least 1"}},
      {train({"--vp", "0"}), {"--vp 0", "at least 1"}},
      {train({"--cp", "0"}), {"--cp 0", "at least 1"}},
      {train({"--ep", "0"}), {"--ep 0", "at least 1"}},
      {{"memory", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "0"}, {"--gpus 0", "at least 1"}},
      {search({"--gpus", "8", "--global-batch", "0"}), {"--global-batch 0", "at least 1"}},
      {search({"--gpus", "0", "--global-batch", "8"}), {"--gpus 0", "at least 1"}},
      {search({"--gpus", "8", "--global-batch", "8", "--top", "0"}), {"--top 0", "at least 1"}},
      {search({"--gpus", "8", "--global-batch", "8", "--threads", "0"}), {"--threads 0", "omit --threads"}},
      {search({"--gpus", "8", "--global-batch", "8", "--threads", "100000"}),
       {"--threads 100000", "hardware threads", "omit --threads"}},
      {search({"--gpus", "8", "--global-batch", "8", "--seq-len", "0"}), {"--seq-len 0", "at least 1"}},
      {train({"--optimizer-state-bits", "4"}), {"--optimizer-state-bits 4", "use 32", "16 (bf16", "8 (block-wise"}},
      {search({"--gpus", "8", "--global-batch", "8", "--optimizer-state-bits", "12"}),
       {"--optimizer-state-bits 12", "use 32"}},
      {train({"--elementwise", "lazy"}), {"--elementwise 'lazy'", "use fused", "or eager"}},
      {search({"--gpus", "8", "--global-batch", "8", "--elementwise", "compiled"}), {"--elementwise 'compiled'", "use fused"}},
      // Offload needs the host's DRAM bandwidth; B200's systems have none in the catalog.
      {{"train", "--model", "llama3-8b", "--gpu", "b200", "--gpus", "8", "--offload-optimizer"},
       {"--offload-optimizer", "no host memory bandwidth", "dgx-h100", "--catalog"}},
      {{"search", "--model", "llama3-8b", "--gpu", "b200", "--gpus", "8", "--global-batch", "8", "--offload-optimizer"},
       {"--offload-optimizer", "no host memory bandwidth", "dgx-h100"}},
      // One H100 PCIe card: its default server (a generic PCIe server) has no sourced host.
      {{"train", "--model", "llama3-8b", "--gpu", "h100-pcie", "--offload-optimizer"},
       {"--offload-optimizer", "pcie-server-h100-pcie", "no host memory bandwidth", "--catalog"}},
  };
  for (const BadInput& c : cases) {
    std::string line;
    for (const std::string& a : c.args) line += a + " ";
    const auto r = run(c.args);
    EXPECT_EQ(r.code, 2) << line << "\nout: " << r.out << "\nerr: " << r.err;
    for (const std::string& s : c.says) EXPECT_NE(r.err.find(s), std::string::npos) << line << "\nerr: " << r.err;
  }
}

// The cap is 4 × the hardware threads, named in the message.
TEST(StrictTrainInput, ThreadCapIsNamed) {
  const auto r = run(search({"--gpus", "8", "--global-batch", "8", "--threads", "100000"}));
  ASSERT_EQ(r.code, 2);
  const int cap = 4 * std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_NE(r.err.find("more than " + std::to_string(cap)), std::string::npos) << r.err;
}

// Past the context length is allowed when asked for, and the plan runs at that length.
TEST(StrictTrainInput, AllowLongerContextPlansPastIt) {
  const auto r = run(train({"--seq-len", "16384", "--allow-longer-context", "--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"seq_len\": 16384"), std::string::npos) << r.out;
}

// A folder is a model only when it holds config.json; otherwise the message says so.
TEST(StrictTrainInput, ModelFolderWithoutConfigSaysSo) {
  const auto dir = testing::scratch_dir("model-folder-without-config");
  auto r = run({"train", "--model", dir.string(), "--gpu", "h100-sxm"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("folder without a config.json"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("not valid JSON"), std::string::npos) << r.err;
  std::filesystem::create_directories(dir / "x.json");
  r = run({"train", "--model", (dir / "x.json").string(), "--gpu", "h100-sxm"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("folder"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuplan
