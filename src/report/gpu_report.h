// Text and JSON views of GPUs: the catalog table, one GPU with its derived figures, and a
// side-by-side comparison.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "calibration/gpu_request.h"
#include "catalog/gpu.h"
#include "catalog/lookup_request.h"

namespace gpuplan {

// The derived figures come with the answer (catalog/gpu_derived.h's GpuDerived, one per GPU).
nlohmann::ordered_json gpu_json(const Gpu& gpu, const GpuDerived& derived);  // datasheet + derived figures
std::string gpus_table_text(const std::vector<const Gpu*>& gpus, const std::vector<GpuDerived>& derived);
std::string gpu_detail_text(const Gpu& gpu, const GpuDerived& derived);
std::string gpu_compare_text(const std::vector<const Gpu*>& gpus, const std::vector<GpuDerived>& derived);
nlohmann::ordered_json gpu_compare_json(const std::vector<const Gpu*>& gpus, const std::vector<GpuDerived>& derived);

// `gpuplan gpus`, `gpu NAME [--calibration]` and `compare A B...` (catalog/lookup_request.h,
// calibration/gpu_request.h).
nlohmann::ordered_json to_json(const GpusAnswer& answer);
std::string to_text(const GpusAnswer& answer);
nlohmann::ordered_json to_json(const GpuAnswer& answer);
std::string to_text(const GpuAnswer& answer);
nlohmann::ordered_json to_json(const CompareAnswer& answer);
std::string to_text(const CompareAnswer& answer);

}  // namespace gpuplan
