// Launch configurations from a plan (`gpuplan train --emit`, `gpuplan infer --emit`, and
// TrainResult.emit in Python): the command line or config file a framework takes for the
// plan gpuplan evaluated, with the framework version the flag names were checked against and
// the source file of that framework's flag list (docs/emit.md). Above report/ in the layer
// order: it writes files, as report/ writes answers, and its text/JSON writers live here.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "infer/infer_request.h"
#include "plan/train_request.h"

namespace gpuplan {

struct EmittedFile {
  std::string name;  // "launch_megatron.sh", "torchtitan.toml", "job.sbatch"
  std::string text;
};

struct LaunchConfig {
  std::string framework;    // megatron, torchtitan, nemo, vllm, sglang, trtllm
  std::string version;      // the release the flag names were checked against
  std::string flag_source;  // the framework's file that defines the flags
  // Flag (or config key) → value, in the order written; "" for a switch.
  std::vector<std::pair<std::string, std::string>> flags;
  std::vector<EmittedFile> files;
  std::vector<std::string> notes;  // what the plan has that the framework spells differently, or lacks
};

// The frameworks each accepts, for messages and the CLI's help.
const std::vector<std::string>& train_emit_frameworks();
const std::vector<std::string>& infer_emit_frameworks();

// Throws Error for an unknown framework (naming the flag and the choices), or for a plan the
// framework cannot express (an infer plan evaluated for another engine).
LaunchConfig emit_train(const TrainAnswer& answer, const std::string& framework);
LaunchConfig emit_infer(const InferAnswer& answer, const std::string& framework);

std::string to_text(const LaunchConfig& config);
nlohmann::ordered_json to_json(const LaunchConfig& config);

}  // namespace gpuplan
