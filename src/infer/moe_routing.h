// The kernels of one MoE layer besides its expert GEMMs (the router's top-k, the sort of tokens
// by expert, the grouped kernel's setup, the gather, the gated activation, the weighted
// combine), as the engine launches them (`[moe] routing_kernels`, data/engines/*.toml). Each is
// memory-bound with a floor: max(kernel_floor, bytes / HBM rate). The gather, activation and
// combine bytes are already in the step's elementwise pass (step.cpp): for those only the floor's
// excess is new. Docs: docs/model/moe-serving.md, "Routing kernels".
#pragma once

#include <vector>

#include "catalog/engine.h"

namespace gpuplan {

// One MoE layer on one GPU, in tokens and widths the kernels see.
struct MoeRoutingLayer {
  double routed_tokens = 0;  // tokens this GPU routes (all the step's under TP; its rank's under attention DP)
  double experts = 0;        // routed experts (the router's logits per token)
  double top_k = 0;
  double hidden = 0;
  double activation_bytes = 0;  // the gated activation's bytes on this GPU (read gate and up, write one)
  double bytes_per_elem = 2;    // activations (bf16)
};

// Bytes one kernel of the layer reads and writes.
double moe_routing_kernel_bytes(MoeRoutingKernel k, const MoeRoutingLayer& layer);

// True for the kernels whose bytes the step's elementwise pass already counts (gather,
// activation, combine: the permutes and the gated activation).
bool moe_routing_kernel_counted(MoeRoutingKernel k);

// Time the layer's routing kernels add to the step: Σ max(floor, bytes / bw) − the counted bytes / bw.
double moe_routing_kernels_s(const std::vector<MoeRoutingKernel>& kernels, double floor_s, double bw_bytes_per_s,
                             const MoeRoutingLayer& layer);

}  // namespace gpuplan
