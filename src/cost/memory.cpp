// Memory per GPU. ZeRO stage z shards, over its group: z >= 1 the optimizer states, z >= 2 the
// gradients, z >= 3 the weights (Rajbhandari et al. 2020, fig. 1). FSDP's FULL_SHARD is
// stage 3; hybrid sharding (HSDP) shards over a subgroup and replicates across the rest.
#include "cost/memory.h"

#include <algorithm>

namespace gpuplan {

MemoryBreakdown memory_per_gpu(const MemoryInputs& in) {
  const double dense_shard = std::max(1.0, in.dense_shard);
  const double expert_shard = std::max(1.0, in.expert_shard);
  auto sharded = [&](double per_param, int from_stage) {
    if (in.zero_stage < from_stage) return (in.dense_params + in.expert_params) * per_param;
    return in.dense_params * per_param / dense_shard + in.expert_params * per_param / expert_shard;
  };
  MemoryBreakdown m;
  m.weights_bytes = sharded(in.bytes.weight, 3) + in.extra_weight_bytes;
  m.gradients_bytes = sharded(in.bytes.grad, 2);
  m.optimizer_bytes = sharded(in.bytes.optimizer, 1);
  m.gathered_weights_bytes = in.zero_stage >= 3 ? in.gathered_weight_bytes : 0;
  m.activations_bytes = in.stored_activation_bytes + in.working_activation_bytes;
  m.head_buffers_bytes = in.head_buffer_bytes;
  const double tensors = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.gathered_weights_bytes + m.activations_bytes + m.head_buffers_bytes;
  m.fragmentation_bytes = tensors * in.fragmentation_fraction;
  m.runtime_bytes = in.runtime_bytes;
  m.total_bytes = tensors + m.fragmentation_bytes + m.runtime_bytes;
  return m;
}

}  // namespace gpuplan
