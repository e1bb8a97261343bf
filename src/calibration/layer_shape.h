// The shape of the transformer layer gpuplan-bench times forward and backward (RMSNorm, GQA
// attention without RoPE, SwiGLU MLP, two residuals), and its FLOP count under the training
// model's convention, so a measured layer and a predicted one count the same work.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "workload/model.h"

namespace gpuplan {

struct LayerShape {
  std::string name;  // "llama3.1-8b", "1b-class", or what --layer was given
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int ffn = 0;  // SwiGLU intermediate width (gate and up are ffn wide each)
  int seq = 0;
  int batch = 0;

  int head_dim() const { return heads > 0 ? hidden / heads : 0; }
  double tokens() const { return static_cast<double>(seq) * batch; }
};

// A one-layer Llama-style model of this shape with no vocabulary, for the workload functions.
ModelSpec layer_model(const LayerShape& shape);

// FLOPs of one training step of the layer (forward + backward) for all its tokens:
// tokens × train_flops_per_token, i.e. 6·(matmul weights)·tokens + 3·causal attention, the
// model-FLOP convention the training evaluator's MFU uses (workload/params.h).
double layer_train_flops(const LayerShape& shape);

// The layer of a dense zoo model at `seq` × `batch` tokens. Throws Error for a model the
// benchmark's layer cannot stand for (MoE, MLA, a head_dim other than hidden / heads, no SwiGLU).
LayerShape layer_shape_of(const ModelSpec& model, int seq, int batch);

// "" when gpuplan-bench can run the shape, else why not: every size positive, heads dividing
// hidden, kv_heads dividing heads, and hidden, head_dim, ffn and seq multiples of 16 (the
// alignment cuBLASLt's tensor-core kernels want).
std::string layer_shape_problem(const LayerShape& shape);

// "hidden,heads,kv_heads,ffn,seq,batch" as typed after --layer; throws Error naming the problem.
LayerShape parse_layer_shape(const std::string& text);

// The comma-separated whole numbers typed after `flag` (--layer, --step): exactly `count` of
// them (`count_word` spells it in the message), else Error naming the flag, the text, the bad
// item, `fields` ("hidden,heads,...") and an example.
std::vector<int> parse_flag_sizes(const std::string& flag, const std::string& text, std::size_t count,
                                  const char* count_word, const char* fields, const char* example);

}  // namespace gpuplan
