// Memory per GPU. ZeRO stage z shards, over its group: z >= 1 the optimizer states, z >= 2 the
// gradients, z >= 3 the weights (Rajbhandari et al. 2020, fig. 1). FSDP's FULL_SHARD is
// stage 3; hybrid sharding (HSDP) shards over a subgroup and replicates across the rest.
#include "cost/memory.h"

#include <algorithm>

#include "core/error.h"

namespace gpuplan {

double adam_moment_bytes(int bits) {
  switch (bits) {
    case 32:
      return 4 + 4;
    case 16:
      return 2 + 2;
    case 8:
      return 2 * (1 + kAdam8BitScaleBytes / kAdam8BitBlock);
    default:
      break;
  }
  GP_ASSERT(false, "optimizer state bits must be 32, 16 or 8");
  return 0;
}

StateBytes with_optimizer_state_bits(const StateBytes& base, int bits) {
  if (bits == 32) return base;
  StateBytes s = base;
  s.optimizer = base.optimizer - adam_moment_bytes(32) + adam_moment_bytes(bits);
  return s;
}

const char* memory_peak_name(MemoryPeak p) {
  return p == MemoryPeak::optimizer_step ? "optimizer step" : "start of the backward";
}

MemoryTermsAtPeak memory_terms_at_peak(const MemoryBreakdown& m) {
  MemoryTermsAtPeak t;
  const bool step = m.peak == MemoryPeak::optimizer_step;
  t.gradients = step || !m.grads_freed_between_steps;
  t.activations = !step;
  t.optimizer_temp = step;
  return t;
}

MemoryBreakdown memory_per_gpu(const MemoryInputs& in) {
  const double dense_shard = std::max(1.0, in.dense_shard);
  const double expert_shard = std::max(1.0, in.expert_shard);
  auto sharded_over = [&](double dense, double expert, double per_param, int from_stage) {
    if (in.zero_stage < from_stage) return (dense + expert) * per_param;
    return dense * per_param / dense_shard + expert * per_param / expert_shard;
  };
  auto sharded = [&](double per_param, int from_stage) {
    return sharded_over(in.dense_params, in.expert_params, per_param, from_stage);
  };
  MemoryBreakdown m;
  // 16-bit working weights for every parameter but the fp8-only ones, then the quantised copies.
  m.weights_bytes = sharded_over(std::max(0.0, in.dense_params - in.quantised_only_dense_params),
                                 std::max(0.0, in.expert_params - in.quantised_only_expert_params), in.bytes.weight, 3) +
                    in.extra_weight_bytes;
  m.gradients_bytes = sharded(in.bytes.grad, 2);
  m.optimizer_bytes = in.optimizer_on_host ? 0 : sharded(in.bytes.optimizer, 1);
  m.host_bytes = in.optimizer_on_host ? sharded(in.bytes.optimizer + in.host_grad_bytes, 1) : 0;
  m.gathered_weights_bytes = in.zero_stage >= 3 ? in.gathered_weight_bytes : 0;
  m.activations_bytes = in.stored_activation_bytes + in.working_activation_bytes;
  m.head_buffers_bytes = in.head_buffer_bytes;
  m.weight_copies_bytes = in.weight_copy_bytes;
  m.eager_temporaries_bytes = in.eager_saved_bytes;
  m.optimizer_temp_bytes = in.optimizer_on_host ? 0 : in.optimizer_temp_bytes;
  const double states = m.weights_bytes + m.optimizer_bytes + m.gathered_weights_bytes;
  // Start of the backward: every activation is still saved, the loss's buffers are at their
  // largest, autocast's copies are alive; the gradients only if they persist across steps.
  m.backward_start_bytes = states + m.weight_copies_bytes + m.activations_bytes + m.head_buffers_bytes +
                           m.eager_temporaries_bytes + (in.grads_freed_between_steps ? 0 : m.gradients_bytes);
  // The optimizer step: the activations and copies are freed, every gradient exists.
  m.optimizer_step_bytes = states + m.gradients_bytes + m.optimizer_temp_bytes;
  m.grads_freed_between_steps = in.grads_freed_between_steps;
  m.peak = m.optimizer_step_bytes > m.backward_start_bytes ? MemoryPeak::optimizer_step : MemoryPeak::backward_start;
  m.terms_at_peak = memory_terms_at_peak(m);
  const double tensors = std::max(m.backward_start_bytes, m.optimizer_step_bytes);
  m.fragmentation_bytes = tensors * in.fragmentation_fraction;
  m.runtime_bytes = in.runtime_bytes;
  m.total_bytes = tensors + m.fragmentation_bytes + m.runtime_bytes;
  return m;
}

}  // namespace gpuplan
