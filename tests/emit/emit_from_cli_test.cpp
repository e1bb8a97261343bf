// `train --emit X` then `train --from` the emitted file gives the same plan, through the CLI and
// on its defaults (issue 34): no --seq-len and no --global-batch, the case whose emitted
// configs used to say a sequence length of 0. NeMo's launch script (Hydra overrides) is read back
// too (emit/nemo_import.h).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

// The plan of each framework's round trip: what its launch config can say (torchtitan shards
// with FSDP, ZeRO-3, and always uses SP with TP).
const std::vector<std::string> kEmitQuestion = {"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "16",
                                                "--tp", "2", "--pp", "2", "--zero", "1"};
const std::vector<std::string> kTitanQuestion = {"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "16",
                                                 "--tp", "2", "--pp", "2", "--sp", "--zero", "3", "--framework",
                                                 "torchtitan"};

std::vector<std::string> emit_args(const std::vector<std::string>& question, const std::vector<std::string>& extra) {
  std::vector<std::string> a = question;
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// The emitted file named `name`, written to the scratch dir; its path.
std::string write_emitted(const std::vector<std::string>& question, const std::string& framework,
                          const std::string& name) {
  const auto r = run(emit_args(question, {"--emit", framework, "--json"}));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const auto dir = testing::scratch_dir("emit-from-" + framework);
  for (const auto& f : j["files"]) {
    if (f["name"] == name) return testing::write_file(dir / name, f["text"].get<std::string>()).string();
  }
  ADD_FAILURE() << framework << ": no file " << name << " in " << r.out.substr(0, 500);
  return "";
}

nlohmann::json plan_of(const std::vector<std::string>& args) {
  std::vector<std::string> a = args;
  a.emplace_back("--json");
  const auto r = run(a);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  return nlohmann::json::parse(r.out);
}

void expect_round_trip(const std::vector<std::string>& question, const std::string& framework,
                       const std::string& file_name) {
  const std::string file = write_emitted(question, framework, file_name);
  ASSERT_FALSE(file.empty());
  const nlohmann::json direct = plan_of(question);
  // --from alone with the model and GPU: every plan number comes from the file.
  const nlohmann::json back =
      plan_of({"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "16", "--from", file});
  EXPECT_EQ(direct["plan"], back["plan"]) << framework;
  EXPECT_EQ(direct["step_time_s"], back["step_time_s"]) << framework;
  EXPECT_EQ(direct["plan"]["seq_len"], 8192) << "Llama 3.1 trains at 8,192 by default";
}

TEST(EmitFromCli, MegatronRoundTripsOnDefaults) { expect_round_trip(kEmitQuestion, "megatron", "pretrain_args.txt"); }

TEST(EmitFromCli, NemoRoundTripsOnDefaults) { expect_round_trip(kEmitQuestion, "nemo", "job.sbatch"); }

// Full recompute and a distributed optimizer through NeMo's keys, and the GPUs from the nodes:
// no --gpus on the way back.
TEST(EmitFromCli, NemoRoundTripsRecomputeAndTheGpuCount) {
  const std::vector<std::string> question = {"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "16",
                                             "--tp", "4", "--recompute", "full", "--zero", "1"};
  const std::string file = write_emitted(question, "nemo", "job.sbatch");
  ASSERT_FALSE(file.empty());
  const nlohmann::json direct = plan_of(question);
  const nlohmann::json back = plan_of({"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--from", file});
  EXPECT_EQ(direct["plan"], back["plan"]);
  EXPECT_EQ(direct["step_time_s"], back["step_time_s"]);
}

// NeMo keys gpuplan does not model, and GPUs that disagree with --gpus, are refused naming the
// line, the key and the value.
TEST(EmitFromCli, NemoKeysItCannotModelAreRefused) {
  const auto dir = testing::scratch_dir("emit-from-nemo-bad");
  const auto block = testing::write_file(
      dir / "block.sh", "python megatron_gpt_pretraining.py \\\n  model.tensor_model_parallel_size=2 \\\n"
                        "  model.activations_checkpoint_granularity=full \\\n  model.activations_checkpoint_method=block\n");
  auto r = run({"train", "--model", "llama3.1-8b", "--gpus", "8", "--from", block.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(":4: model.activations_checkpoint_method=block"), std::string::npos) << r.err;
  const auto gpus = testing::write_file(dir / "gpus.sh", "trainer.num_nodes=2 trainer.devices=8 model.micro_batch_size=1\n");
  r = run({"train", "--model", "llama3.1-8b", "--gpus", "8", "--from", gpus.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("trainer.num_nodes=2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--gpus says 8"), std::string::npos) << r.err;
  const auto word = testing::write_file(dir / "word.sh", "model.tensor_model_parallel_size=two\n");
  r = run({"train", "--model", "llama3.1-8b", "--gpus", "8", "--from", word.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("model.tensor_model_parallel_size=two: expected a whole number"), std::string::npos) << r.err;
}

TEST(EmitFromCli, TorchtitanRoundTripsOnDefaults) {
  expect_round_trip(kTitanQuestion, "torchtitan", "torchtitan.toml");
}

TEST(EmitFromCli, NoEmitterWritesASequenceLengthOfZero) {
  const nlohmann::json plan = plan_of(kEmitQuestion)["plan"];
  const std::string seq = std::to_string(plan["seq_len"].get<int>());
  const std::string batch = std::to_string(plan["global_batch"].get<int>());
  for (const std::string framework : {"megatron", "torchtitan", "nemo"}) {
    const auto r = run(emit_args(kEmitQuestion, {"--emit", framework, "--json"}));
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    std::string all;
    for (const auto& f : j["files"]) all += f["text"].get<std::string>() + "\n";
    EXPECT_EQ(all.find("seq-length 0"), std::string::npos) << framework;
    EXPECT_EQ(all.find("seq_len = 0"), std::string::npos) << framework;
    EXPECT_EQ(all.find("seq_length: 0"), std::string::npos) << framework;
    EXPECT_NE(all.find(seq), std::string::npos) << framework << ": the plan's sequence length " << seq;
    EXPECT_NE(all.find(batch), std::string::npos) << framework << ": the plan's global batch " << batch;
  }
}

// A file that holds no plan (a gpuplan system TOML, a text with no Megatron flag) is not a job.
TEST(EmitFromCli, AFileWithoutAPlanIsRefused) {
  const auto dir = testing::scratch_dir("emit-from-bad");
  const auto notes = testing::write_file(dir / "notes.txt", "--lr 3e-4 --train-iters 1000\n");
  auto r = run({"train", "--model", "llama3.1-8b", "--gpus", "8", "--from", notes.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no Megatron-LM plan flags"), std::string::npos) << r.err;
  const auto system = testing::write_file(dir / "box.toml", "kind = \"system\"\nid = \"box\"\n");
  r = run({"train", "--model", "llama3.1-8b", "--gpus", "8", "--from", system.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("so not a torchtitan job TOML"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuplan
