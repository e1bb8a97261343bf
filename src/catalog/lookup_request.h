// The catalog questions as library calls (`gpuplan gpus`, `compare`, `system`, `clouds`,
// `models`, `model`): a request with the command's flags in, the selected catalog entries out
// (pointers into the Catalog, which must outlive the answer). report/ formats the answers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace gpuplan {

// gpuplan gpus [--vendor V] [--gpus-only]
struct GpusRequest {
  std::string vendor;      // "" = every vendor; matched without case
  bool gpus_only = false;  // leave out TPU, Gaudi, Trainium
};
struct GpusAnswer {
  std::vector<const Gpu*> gpus;  // catalog order
};
GpusAnswer answer_gpus(const Catalog& catalog, const GpusRequest& request);

// gpuplan compare A B [C...]: ratios are to the first.
struct CompareRequest {
  std::vector<std::string> names;
};
struct CompareAnswer {
  std::vector<const Gpu*> gpus;
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
};
SystemAnswer answer_system(const Catalog& catalog, const SystemRequest& request);

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

// gpuplan models
struct ModelsAnswer {
  std::vector<const ModelSpec*> models;  // zoo order
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
};
ModelAnswer answer_model(const ModelSpec& model, const ModelRequest& request);

}  // namespace gpuplan
