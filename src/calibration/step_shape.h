// The shape of the training step gpuplan-bench times end to end (a stack of its transformer
// layers between an untied embedding and LM head, cross-entropy loss, mixed-precision AdamW),
// and its FLOP count under the training model's convention, so a measured step and
// `gpuplan train` for the same model count the same work.
#pragma once

#include <string>

#include "calibration/layer_shape.h"
#include "workload/model.h"

namespace gpuplan {

struct StepShape {
  LayerShape layer;  // every layer's shape and the tokens (seq × batch); layer.name names the step
  int layers = 0;    // how many layers are stacked
  int vocab = 0;     // embedding rows and LM-head outputs

  const std::string& name() const { return layer.name; }
  double tokens() const { return layer.tokens(); }
};

// A Llama-style dense model of this shape for the training evaluator: `layers` RMSNorm / GQA /
// SwiGLU layers, untied embedding and LM head, RoPE positions (no position table), no biases.
ModelSpec step_model(const StepShape& shape);

// FLOPs of one training step (forward + backward) for all its tokens: tokens ×
// train_flops_per_token(step_model), i.e. 6·(layer matmul weights + LM head)·tokens + 3·causal
// attention, as layer_train_flops counts a layer. The embedding gather and the optimizer
// update are not matmuls and count nothing, as in MFU.
double step_train_flops(const StepShape& shape);

// "" when gpuplan-bench can run the step, else why not: the layer's conditions
// (layer_shape_problem), at least one layer, and a vocabulary that is a positive multiple of 16
// (the LM head's GEMMs, like the layer's, want tensor-core alignment).
std::string step_shape_problem(const StepShape& shape);

// "layers,hidden,heads,kv_heads,ffn,vocab,seq,batch" as typed after --step; throws Error
// naming the problem.
StepShape parse_step_shape(const std::string& text);

}  // namespace gpuplan
