// The catalog questions as library calls (`gpuplan gpus`, `compare`, `system`, `clouds`,
// `models`, `model`): a request with the command's flags in, the selected catalog entries out
// (pointers into the Catalog, which must outlive the answer). report/ formats the answers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/gpu_derived.h"
#include "catalog/system_derived.h"
#include "core/precision.h"
#include "workload/params.h"

namespace gpuplan {

// gpuplan gpus [--vendor V] [--gpus-only]
struct GpusRequest {
  std::string vendor;      // "" = every vendor; matched without case
  bool gpus_only = false;  // leave out TPU, Gaudi, Trainium
};
struct GpusAnswer {
  std::vector<const Gpu*> gpus;  // catalog order
  std::vector<GpuDerived> derived;  // one per GPU (catalog/gpu_derived.h)
};
GpusAnswer answer_gpus(const Catalog& catalog, const GpusRequest& request);

// gpuplan compare A B [C...]: ratios are to the first.
struct CompareRequest {
  std::vector<std::string> names;
};
struct CompareAnswer {
  std::vector<const Gpu*> gpus;
  std::vector<GpuDerived> derived;  // one per GPU
};
CompareAnswer answer_compare(const Catalog& catalog, const CompareRequest& request);

// gpuplan system NAME: a system (node, rack) or a fabric, by id or alias.
struct SystemRequest {
  std::string name;
};
struct SystemAnswer {
  const Catalog* catalog = nullptr;  // the writers show the GPU, switch and NIC entries it names
  const System* system = nullptr;    // exactly one of the two is set
  const Fabric* fabric = nullptr;
  // A system: its derived figures (catalog/system_derived.h), its node level and the fabrics
  // built from it. A fabric: its levels from the node up.
  SystemFigures figures;
  std::vector<LevelBandwidth> levels;
  std::vector<std::string> fabric_ids;
};
SystemAnswer answer_system(const Catalog& catalog, const SystemRequest& request);

// gpuplan systems: every system (catalog order) and every fabric, each as `system` answers it.
struct SystemsAnswer {
  std::vector<SystemAnswer> systems;
  std::vector<SystemAnswer> fabrics;
};
SystemsAnswer answer_systems(const Catalog& catalog);

// gpuplan clouds [--gpu G] [--provider P] [--all]
struct CloudsRequest {
  std::string gpu;       // "" = every GPU
  std::string provider;  // "" = every provider
  bool all = false;      // include historical (superseded) prices
};
struct CloudsAnswer {
  std::vector<const CloudOffer*> offers;  // by GPU id, cheapest per GPU-hour first within a GPU
};
CloudsAnswer answer_clouds(const Catalog& catalog, const CloudsRequest& request);

// What `gpuplan model` and `models` print about one model at one sequence length: parameter
// counts (workload/params.h), FLOPs per token, weight and KV-cache bytes (workload/kv_cache.h),
// and the layer counts of its kinds. Computed by model_figures, never by the report.
struct ModelFigures {
  ParamCounts params;
  std::int64_t seq_len = 0;
  std::int64_t sliding_layers = 0;    // layers with a sliding or chunked attention window
  std::int64_t mamba_layers = 0;
  std::int64_t attention_layers = 0;
  double recurrent_state_bytes_per_seq = 0;  // Mamba state of one sequence, whole model on one GPU
  double mamba_scan_flops_per_token = 0;
  double attention_flops_per_token = 0;
  double forward_flops_per_token = 0;
  double train_flops_per_token = 0;
  double decode_flops_per_token = 0;
  // Every parameter at bf16, fp8, int4; the KV cache at bf16 and fp8 (in that order).
  std::vector<std::pair<Precision, double>> weight_bytes;
  std::vector<std::pair<Precision, double>> kv_cache_bytes_per_token;
  std::vector<std::pair<Precision, double>> kv_cache_bytes_per_sequence;
};
ModelFigures model_figures(const ModelSpec& model, std::int64_t seq_len);

// gpuplan models
struct ModelsAnswer {
  std::vector<const ModelSpec*> models;  // zoo order
  std::vector<ModelFigures> figures;     // one per model, at default_seq_len
};
ModelsAnswer answer_models(const Catalog& catalog);

// The sequence length figures are quoted at unless the user says: 4,096, or the model's
// maximum context when that is shorter (GPT-2: 1,024).
std::int64_t default_seq_len(const ModelSpec& model);

// gpuplan model NAME [--seq-len N]: `model` is the resolved zoo entry or config.json model
// (the caller resolves NAME and keeps a file-read model alive).
struct ModelRequest {
  std::string name;
  std::optional<std::int64_t> seq_len;  // none = default_seq_len(model)
};
struct ModelAnswer {
  const ModelSpec* model = nullptr;
  std::int64_t seq_len = 0;
  ModelFigures figures;  // at seq_len
};
ModelAnswer answer_model(const ModelSpec& model, const ModelRequest& request);

}  // namespace gpuplan
