// One transformer layer, forward and backward, for gpuplan-bench: RMSNorm, QKV projection, GQA
// causal softmax attention from batched cuBLASLt GEMMs (no RoPE), output projection and
// residual, RMSNorm, SwiGLU MLP and residual, all bf16 with fp32 accumulation.
#pragma once

#include <string>
#include <vector>

#include "calibration/layer_shape.h"

namespace gpuplan::cuda {

struct LayerRun {
  std::vector<double> fwd_times_s;
  std::vector<double> bwd_times_s;
  bool correct = false;
  std::string check;
};

// Forward and backward once on fresh random data; the output and every gradient compared with
// the CPU reference (calibration/layer_reference.h). For small shapes: the reference is O(n²).
LayerRun check_transformer_layer(const LayerShape& shape, unsigned seed);
// Forward and backward timed separately (CUDA events, after warm-up), then the output and every
// gradient checked to be finite (every buffer starts poisoned with NaN).
LayerRun time_transformer_layer(const LayerShape& shape, int runs, unsigned seed);

}  // namespace gpuplan::cuda
