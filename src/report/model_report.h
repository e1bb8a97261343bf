// Text and JSON views of models: the zoo as a table, and one model with its parameter counts,
// FLOPs per token, weight bytes and KV-cache bytes, all from the answer's ModelFigures
// (catalog/lookup_request.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "catalog/lookup_request.h"

namespace gpuplan {

nlohmann::ordered_json model_json(const ModelSpec& model, const ModelFigures& figures);
std::string models_table_text(const std::vector<const ModelSpec*>& models, const std::vector<ModelFigures>& figures);
std::string model_detail_text(const ModelSpec& model, const ModelFigures& figures);

// `gpuplan models` and `gpuplan model NAME` (catalog/lookup_request.h).
nlohmann::ordered_json to_json(const ModelsAnswer& answer);
std::string to_text(const ModelsAnswer& answer);
nlohmann::ordered_json to_json(const ModelAnswer& answer);
std::string to_text(const ModelAnswer& answer);

// "8.03B", "124.4M", "1.01T": a parameter count for people.
std::string format_params(double count);

}  // namespace gpuplan
