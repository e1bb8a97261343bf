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
  // What the framework does with a setting a run's config leaves unset ([defaults]; "" = no
  // default: `validate training` then takes the fastest setting that fits). Kept as the data
  // files spell them (plan/resolve.h turns them into plan settings).
  std::string default_sequence_parallel;  // "with_tp" (on exactly when tp > 1) or "off"
  std::string default_recompute;          // "none", "selective" or "full": the lightest tried first
  std::string default_moe_overlap;        // "none" or "1f1b"
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

// The entry `name` names (id or alias, case-insensitive); nullptr when none does (a published
// run's `framework` cell may name software the catalog has no figures for: meta-internal).
const Framework* find_framework(const Catalog& catalog, std::string_view name);

}  // namespace gpuplan
