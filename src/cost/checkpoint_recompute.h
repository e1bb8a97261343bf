// What a full activation checkpoint reruns in the backward. PyTorch's non-reentrant checkpoint
// (torch.utils.checkpoint.checkpoint(use_reentrant=False), what Hugging Face transformers'
// gradient_checkpointing_enable and FSDP's checkpoint_wrapper run) recomputes the layer forward
// only until every tensor the original forward saved has been rebuilt, then stops
// (torch/utils/checkpoint.py: "early stop", on by default, _StopRecomputationError raised from
// the recompute's pack hook). Autograd saves an op's inputs before the op runs (the generated
// VariableType code sets grad_fn's SavedVariables, then redispatches), so the recompute stops
// before the last op that saves anything runs: in a decoder layer, the down projection's GEMM,
// and the residual add after it (a sum saves nothing) is never reached. Megatron's and
// DeepSpeed's reentrant checkpoint functions rerun the whole forward.
#pragma once

#include "workload/ops.h"

namespace gpuplan {

// How many leading ops of `ops` (in forward order) the early-stopping recompute runs: the
// index of the last op that saves a tensor for the backward; `ops.count` when none does.
int early_stop_recompute_ops(const LayerOps& ops);

}  // namespace gpuplan
