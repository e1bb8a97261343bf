// A Hugging Face model id ("meta-llama/Llama-3.1-8B") or a hub-cache folder resolved to the
// config.json already on disk, without the network. The cache is where huggingface_hub puts
// it: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub; a model lives in
// models--{org}--{name}/snapshots/{revision}/ and refs/main names the revision to use.
#pragma once

#include <optional>
#include <string>

namespace gpuplan {

// The hub cache folder, from the environment as huggingface_hub reads it.
std::string hf_hub_cache_dir();

// config.json of one snapshot of a cached model folder (models--org--name): the revision
// refs/main names, else the only or the most recently written snapshot; nullopt when none
// holds a config.json.
std::optional<std::string> hf_cached_snapshot_config(const std::string& model_folder);

// config.json of `model_id` ("org/name") in the hub cache; nullopt when it is not cached.
std::optional<std::string> hf_cached_config(const std::string& model_id);

}  // namespace gpuplan
