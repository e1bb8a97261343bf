// Where each parameter of gpuplan-bench's training step lives in its flat buffers. The fp32
// master weights, the fp32 gradients, the two fp32 Adam moments and the bf16 copy the GEMMs
// read all share this one layout (Megatron's contiguous grad buffer, extended to every state),
// so the optimizer is one elementwise pass and the CPU reference can unpack what it downloads.
#pragma once

#include <cstddef>
#include <vector>

#include "calibration/step_shape.h"

namespace gpuplan {

// Offsets (in elements) of one layer's tensors; shapes as in layer_reference.h's LayerWeights.
struct LayerOffsets {
  std::size_t wqkv = 0, wo = 0, wgu = 0, wd = 0;  // matrices
  std::size_t norm1 = 0, norm2 = 0;               // RMSNorm weights
};

// Every matrix first, then every norm weight: [embedding | head | each layer's wqkv, wo, wgu,
// wd | each layer's norm1, norm2 | final norm]. Weight decay applies to elements
// [0, decayed) and not to the norms after them (Megatron decays 2-D weights only). Each
// matrix is a multiple of 256 elements (every dimension a multiple of 16), so each starts
// 512-byte aligned in bf16 and 1 KiB in fp32, as cuBLASLt's fastest kernels want; the norms
// feed no GEMM. No padding: `total` is count_params(step_model(shape)).total.
struct StepLayout {
  std::size_t embedding = 0;  // [vocab, hidden]
  std::size_t head = 0;       // [vocab, hidden], nn.Linear's layout
  std::vector<LayerOffsets> layers;
  std::size_t final_norm = 0;  // [hidden]
  std::size_t decayed = 0;
  std::size_t total = 0;
};

// Elements of each layer tensor.
struct LayerSizes {
  std::size_t wqkv, wo, wgu, wd, norm;
  explicit LayerSizes(const LayerShape& shape);
};

StepLayout step_layout(const StepShape& shape);

}  // namespace gpuplan
