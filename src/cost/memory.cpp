// Memory per GPU. ZeRO stage z shards, over its group: z >= 1 the optimizer states, z >= 2 the
// gradients, z >= 3 the weights (Rajbhandari et al. 2020, fig. 1). FSDP's FULL_SHARD is
// stage 3; hybrid sharding (HSDP) shards over a subgroup and replicates across the rest.
#include "cost/memory.h"

#include <algorithm>

#include "core/error.h"
#include "cost/memory_sum.h"

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

MemoryTermsAtPeak memory_terms_at_peak(const MemoryBreakdown& m) { return memory_detail::terms_at_peak(m); }

// The body is in cost/memory_sum.h, inline, for the evaluator's per-rank loop.
MemoryBreakdown memory_per_gpu(const MemoryInputs& in) {
  MemoryBreakdown m;
  memory_detail::memory_per_gpu(in, m);
  return m;
}

}  // namespace gpuplan
