// A layer's ops built in two parts, its mixer's (attention or Mamba, with the norm before it and
// the residual after it) and the rest, so that two kinds of layer with the same mixer build it
// once: the training evaluator costs one layer of each kind per plan (plan/layer_cost.cpp), and
// DeepSeek-V3's dense and MoE layers, or a hybrid's MoE and dense layers, share their mixer.
// The ops are build_layer_ops' (workload/ops.h) to the bit (Ops.AfterTheMixerIsTheWholeLayerToTheBit).
#pragma once

#include <cstdint>

#include "workload/ops.h"

namespace gpuplan {

// Where build_layer_ops left the mixer's ops: how many, and the fp8 cast bytes they had summed
// (the closing fp8_cast op sums the whole layer's, in op order).
struct MixerPrefix {
  int count = 0;
  double fp8_cast_bytes = 0;
  double nvfp4_rht_bytes = 0;
};

// build_layer_ops, and where its mixer's ops end.
void build_layer_ops(const ModelSpec& model, std::int64_t layer_idx, const OpShape& shape, LayerOps& out,
                     MixerPrefix& mixer);

// Whether layers `a` and `b` have the same mixer ops under any shape (the same mixer, both
// sliding-window or neither).
bool same_mixer_ops(const ModelSpec& model, std::int64_t a, std::int64_t b);

// build_layer_ops of layer `layer_idx` into `out`, whose first `mixer.count` ops are on entry
// those build_layer_ops gave a layer with the same mixer ops (same_mixer_ops) at the same
// shape, `mixer` as it reported them: they are kept and the rest is built.
void build_layer_ops_after_mixer(const ModelSpec& model, std::int64_t layer_idx, const OpShape& shape,
                                 const MixerPrefix& mixer, LayerOps& out);

}  // namespace gpuplan
