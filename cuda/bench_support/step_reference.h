// The CPU reference for gpuplan-bench's training step: the loss of a stack of its transformer
// layers (layer_reference.h) between an embedding and an untied LM head, in double precision,
// and the check of a device's loss and gradients against it (gradients by directional finite
// differences of the reference loss, as for the layer, so no hand-written backward is trusted).
#pragma once

#include <string>
#include <vector>

#include "bench_support/layer_reference.h"
#include "calibration/step_shape.h"

namespace gpuplan {

// Row-major, nn.Linear's layout. Gradients use the same struct.
struct StepWeights {
  std::vector<double> embedding;  // [vocab, hidden]: row v is token v's input vector
  std::vector<LayerWeights> layers;
  std::vector<double> final_norm;  // [hidden]
  std::vector<double> head;        // [vocab, hidden]: logits = RMSNorm(x) · headᵀ
};

// Token ids and the targets the loss scores them against, one each per token (t = batch_idx ·
// seq + position), from a hash of (t, seed): not text, but every id equally likely.
struct StepBatch {
  std::vector<int> tokens;
  std::vector<int> targets;
};
StepBatch step_batch(const StepShape& shape, unsigned seed);

// Mean over rows of −log softmax(logits row)[target]: logits [rows, vocab], rows =
// targets.size(). With `dlogits`, also its gradient, (softmax − onehot(target)) / rows.
double cross_entropy_reference(const std::vector<double>& logits, const std::vector<int>& targets, int vocab,
                               std::vector<double>* dlogits = nullptr);

// embedding rows → the layers in order → final RMSNorm → LM head → mean cross-entropy.
double step_loss_reference(const StepShape& shape, const StepBatch& batch, const StepWeights& w);

// The tensors of a flat parameter buffer laid out by step_layout(shape).
StepWeights unpack_step_weights(const StepShape& shape, const std::vector<double>& flat);

// One parameter tensor of the step.
struct StepTensor {
  enum class Kind { embedding, head, final_norm, layer };
  Kind kind = Kind::embedding;
  int layer_idx = 0;
  LayerTensor which = LayerTensor::wqkv;  // for Kind::layer; never LayerTensor::x
};
// The embedding, the head, the final norm, then every weight of every layer.
std::vector<StepTensor> all_step_tensors(const StepShape& shape);
std::string step_tensor_name(const StepTensor& tensor);  // "dW_head", "layer 1 dW_qkv", ...
std::vector<double>& step_tensor(StepWeights& w, const StepTensor& tensor);
const std::vector<double>& step_tensor(const StepWeights& w, const StepTensor& tensor);

// d/dε of the reference loss at w + ε·direction (in `tensor`), by a central difference of `step`.
double step_directional_derivative(const StepShape& shape, const StepBatch& batch, const StepWeights& w,
                                   const StepTensor& tensor, const std::vector<double>& direction, double step);

struct StepReferenceCheck {
  bool correct = false;
  std::string check;
};

// A device's loss and gradients (of `tensors`), computed from these weights and this batch,
// against the reference: the loss within 2e-3 of the reference's (relative), and each
// gradient g, on 3 random ±1 directions v, |Σ g·v − finite difference| within 5% of ‖g‖₂ (the
// layer check's limits; bf16 activations err by ~2^-8 per rounding, a missing term by tens of
// percent). The loss is a few units (ln(vocab) plus what the head's wider weights add), so
// its limit is tight.
StepReferenceCheck check_step_against_reference(const StepShape& shape, const StepBatch& batch, const StepWeights& w,
                                                double device_loss, const StepWeights& device_grads,
                                                const std::vector<StepTensor>& tensors);

}  // namespace gpuplan
