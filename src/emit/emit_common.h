// What the emitters share: the Hugging Face name of a model, and a command line built from
// LaunchConfig::flags.
#pragma once

#include <string>

#include "emit/launch_config.h"
#include "workload/model.h"

namespace gpuplan {

// The model's Hugging Face repository ("meta-llama/Llama-3.1-70B"): the first alias with an
// owner, else its id.
std::string hf_model_name(const ModelSpec& model);

// "PROGRAM \\\n    --flag value \\\n    --switch" from config.flags.
std::string command_line(const std::string& program, const LaunchConfig& config);

}  // namespace gpuplan
