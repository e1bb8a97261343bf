// memory_per_gpu's body, inline, for the evaluator's per-rank loop (plan/rank_load.cpp), where a
// call and its breakdown returned through memory cost a cold plan ~40 instructions per rank
// costed. Included only by cost/memory.cpp (memory_per_gpu) and plan/rank_load.cpp; one
// definition, so both give the same bytes.
#pragma once

#include <algorithm>

#include "cost/memory.h"

namespace gpuplan::memory_detail {

[[gnu::always_inline]] inline MemoryTermsAtPeak terms_at_peak(const MemoryBreakdown& m) {
  MemoryTermsAtPeak t;
  const bool step = m.peak == MemoryPeak::optimizer_step;
  t.gradients = step || !m.grads_freed_between_steps;
  t.activations = !step;
  t.optimizer_temp = step;
  return t;
}

[[gnu::always_inline]] inline void memory_per_gpu(const MemoryInputs& in, MemoryBreakdown& m) {
  const double dense_shard = std::max(1.0, in.dense_shard);
  const double expert_shard = std::max(1.0, in.expert_shard);
  auto sharded_over = [&](double dense, double expert, double per_param, int from_stage) {
    if (in.zero_stage < from_stage) return (dense + expert) * per_param;
    return dense * per_param / dense_shard + expert * per_param / expert_shard;
  };
  auto sharded = [&](double per_param, int from_stage) {
    return sharded_over(in.dense_params, in.expert_params, per_param, from_stage);
  };
  // 16-bit working weights for every parameter but the fp8-only ones, then the quantised copies.
  m.weights_bytes =
      sharded_over(std::max(0.0, in.dense_params - in.quantised_only_dense_params),
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
  m.terms_at_peak = terms_at_peak(m);
  const double tensors = std::max(m.backward_start_bytes, m.optimizer_step_bytes);
  m.fragmentation_bytes = tensors * in.fragmentation_fraction;
  m.runtime_bytes = in.runtime_bytes;
  m.total_bytes = tensors + m.fragmentation_bytes + m.runtime_bytes;
}

}  // namespace gpuplan::memory_detail
