// Text and JSON views of models: the zoo as a table, and one model with its parameter counts,
// FLOPs per token, weight bytes and KV-cache bytes (workload/params.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "workload/model.h"

namespace gpuplan {

// The sequence length figures are quoted at unless the user says: 4,096, or the model's
// maximum context when that is shorter (GPT-2: 1,024).
std::int64_t default_seq_len(const ModelSpec& model);

nlohmann::ordered_json model_json(const ModelSpec& model, std::int64_t seq_len);
std::string models_table_text(const std::vector<const ModelSpec*>& models);
std::string model_detail_text(const ModelSpec& model, std::int64_t seq_len);

// "8.03B", "124.4M", "1.01T": a parameter count for people.
std::string format_params(double count);

}  // namespace gpuplan
