// Early-stopping recompute: docs/model/training.md, "Recomputation".
#include "cost/checkpoint_recompute.h"

namespace gpuplan {

int early_stop_recompute_ops(const LayerOps& ops) {
  for (int i = ops.count - 1; i >= 0; --i) {
    if (ops.ops[static_cast<std::size_t>(i)].saves_for_backward) return i;
  }
  return ops.count;
}

}  // namespace gpuplan
