// The framework's share of training memory beyond the planner's tensor count: how it keeps the
// weights (fp32 under autocast, or 16-bit with an fp32 master copy), what eager element-wise
// chains make autograd save, and how many bytes per logit the loss holds at its peak. The
// behaviour is data (catalog/framework.h FrameworkMemory, data/fitted/frameworks/*.toml); these
// are the formulas. Sources and the derivation: docs/model/training.md, "Memory as the
// allocator sees it".
#pragma once

#include <cstdint>

#include "catalog/framework.h"
#include "cost/memory.h"
#include "workload/activations.h"
#include "workload/model.h"
#include "workload/ops.h"

namespace gpuplan {

// Bytes per parameter as the framework holds them. An fp32 model under autocast keeps 4-byte
// weights and 4-byte gradients, and the optimizer no separate 4-byte master copy: the same 16
// bytes per parameter for 32-bit Adam, split differently (which matters once the gradients
// are freed between steps).
StateBytes framework_state_bytes(const FrameworkMemory& fm, const StateBytes& base);

// Extra bytes of one layer of one micro-batch that eager chains keep for the backward, beyond
// workload/activations.h's fused count: RMSNorm's fp32 internals, RoPE's rotated copies, the
// attention output's contiguous copy, SwiGLU's separate SiLU output. Stored from forward to
// backward, except under full recomputation, where only the layer being recomputed holds them
// (working). Zero for fused chains and for frameworks without eager terms.
LayerActivations eager_saved_activations(const FrameworkMemory& fm, const ModelSpec& model, std::int64_t layer_idx,
                                         const OpShape& shape, Recompute recompute);

// Bytes per logit (token × vocabulary / TP) alive at the loss's peak: the framework's figure for
// eager or fused element-wise chains, else the reference `act_bytes + 4` (the logits in the
// activation precision and an fp32 buffer for the softmax and its gradient).
double loss_bytes_per_logit(const FrameworkMemory& fm, bool eager, double act_bytes);

}  // namespace gpuplan
