// Reads a Hugging Face config.json (or a zoo entry's [config] table, which uses the same keys)
// into a ModelSpec: the architecture keys of each supported model_type, validated.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "workload/model.h"

namespace gpuplan {

// The model_type values gpuplan reads: llama, mistral, mixtral, qwen2, qwen3, qwen3_moe,
// deepseek_v2, deepseek_v3, gpt2, gpt_oss, mpt, nemotron.
const std::vector<std::string>& supported_hf_model_types();

// Builds the model shape from `config`; `where` names the file in messages ("config.json").
// A missing required field, a wrong type, a non-positive or implausibly large size, an
// inconsistent shape or an unsupported model_type throws Error naming the field.
// Keys that do not change the shape (rope_theta, dropout, token ids, ...) are ignored.
// `strict` (zoo files) also rejects a key that looks like a misspelling of one the reader
// wanted ("num_attention_head": did you mean 'num_attention_heads'?).
// id, name and family are left for the caller (family defaults to the model_type).
ModelSpec model_from_hf_config(const nlohmann::json& config, const std::string& where, bool strict = false);

// Reads a config.json file; the model's id is its folder's name ("Llama-3.1-8B/config.json")
// or the file's stem. Throws Error on an unreadable file or invalid JSON.
ModelSpec load_hf_config_file(const std::string& path);

}  // namespace gpuplan
