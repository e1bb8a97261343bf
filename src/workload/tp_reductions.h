// Tensor-parallel reductions of one decoder layer: the points where the partial sums of a
// TP-sharded block are reduced across the TP group (one AllReduce, or a ReduceScatter +
// AllGather with sequence parallelism). Megatron's block has two, after attention and after the
// MLP (Shoeybi et al. 2019, fig. 4). The rule is the model's structure, so it lives here, once,
// for the training (plan/layer_cost.cpp) and the serving (infer/step.cpp) evaluators:
// - a hybrid's layer may hold only its mixer (attention or Mamba: one reduction after the
//   out-projection) or only its MLP (Nemotron-H, Jamba), or no MLP at all;
// - a parallel block (GPT-J, Falcon's parallel_attn: attention and MLP read the same input)
//   adds the two partial sums before one reduction;
// - a MoE layer's FFN is reduced only as far as the caller's expert layout shards it over TP.
#pragma once

#include <algorithm>
#include <cstdint>

#include "workload/model.h"

namespace gpuplan {

// How the FFN of a MoE layer meets the TP group.
enum class MoeFfnReduction : std::uint8_t {
  // Experts sharded over TP (serving with expert parallelism 1): the FFN output is reduced.
  all_experts,
  // Routed experts run whole on their EP rank (training's expert TP 1); only the shared
  // experts, TP-sharded like a dense MLP, are reduced.
  shared_experts_only,
  // The routed and shared outputs come back through the expert AllToAll's combine (serving
  // with EP > 1 or attention data-parallelism): no TP reduction for the FFN.
  none,
};

// Reductions of layer `layer_idx` per forward pass.
inline double tp_reductions(const ModelSpec& m, std::int64_t layer_idx, MoeFfnReduction moe_ffn) {
  const bool moe = m.is_moe_layer(layer_idx);
  const bool ffn_reduced = m.has_ffn(layer_idx) &&
                           (!moe || moe_ffn == MoeFfnReduction::all_experts ||
                            (moe_ffn == MoeFfnReduction::shared_experts_only && m.moe.shared_experts > 0));
  const double separate = (m.mixer(layer_idx) != MixerKind::none ? 1.0 : 0.0) + (ffn_reduced ? 1.0 : 0.0);
  return m.parallel_block ? std::min(separate, 1.0) : separate;
}

// Reductions of every decoder layer of the model per forward pass.
inline double tp_reductions_all_layers(const ModelSpec& m, MoeFfnReduction moe_ffn) {
  double n = 0;
  for (std::int64_t i = 0; i < m.layers; ++i) n += tp_reductions(m, i, moe_ffn);
  return n;
}

}  // namespace gpuplan
