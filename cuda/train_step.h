// One training step of a stack of transformer layers on one GPU, as Megatron runs it in mixed
// precision: bf16 weights feed the GEMMs (fp32 accumulation), fp32 gradients, fp32 master
// weights and fp32 Adam moments, the bf16 copy refreshed after each update. Embedding gather →
// layers (layer_pass.h) → final RMSNorm → LM head (cuBLASLt, fp32 logits) → mean softmax
// cross-entropy; backward through all of it to the embedding's scatter-add; AdamW over every
// parameter in one fused pass. No gradient clipping, no loss scaling (bf16 needs none), one
// micro-batch, no recomputation, no RoPE (as the layer).
//
// Memory: the parameters, their gradients and the two moments are each one flat fp32 buffer in
// step_layout.h's order (the bf16 copy too), so a tensor is an offset, and the optimizer one
// kernel. Per layer, the activations backward reads (LayerActivations); the layer's scratch,
// its cuBLASLt plans and the two gradient buffers that carry dx down the stack are shared.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench_support/adamw_reference.h"
#include "calibration/step_layout.h"
#include "bench_support/step_reference.h"
#include "layer_pass.h"
#include "step_kernels.h"

namespace gpuplan::cuda {

class TrainingStep {
 public:
  // Allocates every buffer poisoned with NaN, then draws the master weights (embedding rows
  // uniform in ±1, matrices ±1/sqrt(fan-in) as the layer bench, the LM head 4× that so the
  // logits spread by ~1, norm weights 1 ± 1/8), the Adam moments (as after kStateSteps steps:
  // m ±2^-10, v in [2^-21, 3·2^-21)), the bf16 copy, and the batch (step_batch(shape, seed)).
  TrainingStep(const StepShape& shape, unsigned seed);

  void forward();   // embedding → loss
  void backward();  // loss → every parameter's gradient
  void optimizer_step(const AdamWConfig& config);  // AdamW, step number steps_done() + 1

  // The moments start as after this many steps, so the first update is step 3 and its bias
  // corrections (1 − β^3) are far from both 0 and 1.
  static constexpr int kStateSteps = 2;
  int steps_done() const { return steps_done_; }

  const StepShape& shape() const { return shape_; }
  const StepLayout& layout() const { return layout_; }
  const StepBatch& batch() const { return batch_; }
  const float* loss() const { return loss_.get(); }
  const float* master() const { return master_.get(); }
  const float* grads() const { return grads_.get(); }
  const float* adam_m() const { return m_.get(); }
  const float* adam_v() const { return v_.get(); }
  const Bf16* params() const { return params_.get(); }

  // Every buffer a step writes, for the finiteness check after timing.
  struct Buffer {
    std::string name;
    const void* data;
    Elem elem;
    std::size_t count;
  };
  std::vector<Buffer> buffers() const;

 private:
  LayerWeightPtrs layer_weights(std::size_t layer_idx) const;
  LayerGradPtrs layer_grads(std::size_t layer_idx) const;
  void fill(unsigned seed);

  StepShape shape_;
  StepLayout layout_;
  StepBatch batch_;
  int steps_done_ = kStateSteps;
  LtContext lt_;
  LayerPass pass_;
  // Flat parameter state (step_layout.h).
  Tensor<float> master_, grads_, m_, v_;
  Tensor<Bf16> params_;
  // The batch.
  DeviceBuffer<int> tokens_, targets_;
  // Activations: xs_[l] is layer l's input, xs_[L] the last layer's output; per-layer saved state.
  std::vector<std::unique_ptr<Tensor<Bf16>>> xs_;
  std::vector<std::unique_ptr<LayerActivations>> saved_;
  Tensor<Bf16> xnf_;   // final RMSNorm output [T, H]
  Tensor<float> rstdf_;
  Tensor<float> logits_, lse_, losses_, loss_;  // [T, V], [T], [T], [1]
  // Backward.
  Tensor<Bf16> dlogits_, dxnf_, dx_a_, dx_b_;  // dx_a_/dx_b_: dx of one layer is dout of the one below
  LtMatmul logits_mm_, dxnf_mm_, dhead_mm_;
};

}  // namespace gpuplan::cuda
