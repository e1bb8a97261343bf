// Activation memory: the bytes one transformer layer keeps for its backward pass, per
// micro-batch on one GPU, under none / selective / full recomputation, with and without
// sequence parallelism (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models", sec. 4, generalised to GQA, MLA, SwiGLU and MoE; FlashAttention-style
// attention keeps no s×s scores). Formulas: docs/model/training.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "workload/model.h"
#include "workload/ops.h"

namespace gpuplan {

// none: keep everything. selective: rerun the cheap, memory-heavy parts in the backward pass
// (Korthikanti's selective recomputation of the attention core, extended as Megatron-Core's
// recompute modules do to the norms, the activation functions and MLA's up-projections), so
// their outputs are not kept. full: keep only each layer's input and rerun the layer's forward.
enum class Recompute { none, selective, full };

std::string_view recompute_name(Recompute r);
std::optional<Recompute> parse_recompute(std::string_view name);

struct LayerActivations {
  double stored_bytes = 0;   // kept from forward to backward, per layer and micro-batch
  double working_bytes = 0;  // recomputed tensors, alive while one layer runs its backward
};

// Layer `layer_idx` under `recompute` and Megatron-Core's recompute modules (RecomputeModule
// bits of workload/ops.h: what they rerun is not kept). The shape's `tokens()` rows are this
// GPU's share.
LayerActivations layer_activations(const ModelSpec& model, std::int64_t layer_idx, const OpShape& shape,
                                   Recompute recompute, std::uint8_t recompute_modules = 0);

// Korthikanti et al. 2022, eq. (2)-(5), for a GPT layer with materialised attention scores:
// s·b·h·(34 + 5·a·s/h) bytes without parallelism; /t with TP + SP; 2·s·b·h with full
// recomputation. Kept as the reference the generalised formula is tested against.
double korthikanti_layer_bytes(double s, double b, double h, double a, int t, bool sp, Recompute r);

}  // namespace gpuplan
