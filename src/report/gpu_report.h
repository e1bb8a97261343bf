// Text and JSON views of GPUs: the catalog table, one GPU with its derived figures, and a
// side-by-side comparison.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "catalog/gpu.h"

namespace gpuplan {

nlohmann::ordered_json gpu_json(const Gpu& gpu);           // datasheet + derived figures
std::string gpus_table_text(const std::vector<const Gpu*>& gpus);
std::string gpu_detail_text(const Gpu& gpu);
std::string gpu_compare_text(const std::vector<const Gpu*>& gpus);
nlohmann::ordered_json gpu_compare_json(const std::vector<const Gpu*>& gpus);

}  // namespace gpuplan
