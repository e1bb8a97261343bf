// Which of a layer's ops a CUDA graph captures, as Megatron-Core captures them
// (Plan::cuda_graph_scope; --cuda-graph-impl "transformer_engine": Transformer Engine's
// make_graphed_callables over each layer's captured part, one graph per layer, micro-batch and
// pass; megatron/core/transformer/transformer_layer.py and cuda_graphs.py at core_v0.16.0).
// A captured region's kernels cost the host one graph launch instead of one launch each
// (cost/roofline.h kernel_launch_s); the ops outside it keep their eager issue. Formulas:
// docs/model/training.md, "CUDA graphs".
#pragma once

#include <cstdint>

#include "workload/model.h"
#include "workload/ops.h"

namespace gpuplan {

// The captured ops of one layer: [begin, end) of its LayerOps, and the graph launches the host
// issues for them per pass (forward, and again backward).
struct GraphedOps {
  int begin = 0;
  int end = 0;
  int launches_per_pass = 0;
  bool contains(int i) const { return i >= begin && i < end; }
};

// The mixer's ops are [0, mixer_end) (the input norm to the residual add: attention or
// Mamba); the rest is the MLP or MoE block. "attn" / "mamba" capture the mixer; "mlp" a dense
// layer's MLP block; "moe_router" and "moe_preprocess" a MoE layer's pre-MLP norm, router and
// top-k, up to the host sync of its token counts (LayerOps::host_sync_at): the dispatch, the
// experts and the combine have data-dependent shapes and run eagerly. Adjacent parts are one
// graph (the layer's captured callable). "full_iteration" captures every op, launched once per
// iteration, not per layer: no host time.
GraphedOps graphed_ops(const ModelSpec& m, std::int64_t layer_idx, const LayerOps& ops, int mixer_end,
                       std::uint8_t scope);

}  // namespace gpuplan
