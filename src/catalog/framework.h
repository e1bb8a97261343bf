// The training framework a plan runs under (Megatron-Core, Megatron-LM 2021, eager PyTorch
// FSDP, DeepSpeed): the software-dependent figures of the step, kept apart from the silicon
// ones of catalog/efficiency.h. Loaded from data/fitted/frameworks/*.toml by framework_parse.cpp;
// folded into the roofline device by cost/roofline.h. Fitted per framework family, never per run.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/provenance.h"

namespace gpuplan {

struct Catalog;

struct Framework {
  std::string id;  // "megatron-core"
  std::vector<std::string> aliases;  // names users type for it: "nemo", "torchtitan", ...
  std::string name;
  bool is_default = false;  // the framework a plan runs under unless the user names one
  // Host time to issue one kernel: the framework's per-op dispatch (eager PyTorch runs Python
  // and the dispatcher per op; Megatron-Core with Transformer Engine fuses and graph-captures)
  // plus the driver launch. The CPU runs ahead of the GPU, so it binds only for small kernels.
  double kernel_launch_s = 0;
  // The attention kernel generation the framework ships, as a factor on the GPU family's
  // fused-attention fractions (which are those of Megatron-Core + Transformer Engine's cuDNN
  // kernels: 1.0). FlashAttention-2 through PyTorch SDPA on Hopper reaches ~0.35/0.75 of FA3.
  double attention_scale = 1;
  // Kernel fusion of the memory-bound ops (norms, RoPE, activations, casts), as a factor on
  // the family's achievable HBM fraction: unfused eager kernels move the same tensors more times.
  double memory_scale = 1;
  // Prefixes of shared/data/training-runs.csv `source` values whose runs used this framework
  // (`gpuplan validate training` reads each row's framework from here).
  std::vector<std::string> validation_sources;
  // Prefixes of row ids that used this framework although their source is mapped to another
  // (a paper's baseline runs on someone else's framework). Checked before the sources.
  std::vector<std::string> validation_row_ids;
  std::string notes;
  Provenance provenance;
};

// The framework `name` names (id or alias, case-insensitive); an empty name gives the default
// entry. Throws Error naming `flag`, the value and every valid name.
const Framework& resolve_framework(const Catalog& catalog, std::string_view name, std::string_view flag = "--framework");

// The entry marked default (else the first); nullptr when the catalog has none.
const Framework* default_framework(const Catalog& catalog);

// Every name `--framework` accepts, ids first then aliases, for messages and help text.
std::vector<std::string> framework_names(const Catalog& catalog);

// The framework of a published run: the one whose validation_row_ids prefix `row_id`, else
// whose validation_sources prefix `source`; nullptr when none does.
const Framework* framework_for_run(const Catalog& catalog, std::string_view row_id, std::string_view source);

}  // namespace gpuplan
