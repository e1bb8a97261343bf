#include "calibration/layer_shape.h"

#include <sstream>

#include <fmt/format.h>

#include "core/error.h"
#include "workload/params.h"

namespace gpuplan {

ModelSpec layer_model(const LayerShape& shape) {
  ModelSpec m;
  m.id = shape.name;
  m.name = shape.name;
  m.layers = 1;
  m.hidden = shape.hidden;
  m.heads = shape.heads;
  m.kv_heads = shape.kv_heads;
  m.head_dim = shape.head_dim();
  m.ffn_hidden = shape.ffn;
  m.vocab = 0;  // no embedding or head: the layer alone
  m.max_seq_len = shape.seq;
  m.mlp = MlpKind::swiglu;
  m.norm = NormKind::rmsnorm;
  m.position = PositionKind::rope;
  return m;
}

double layer_train_flops(const LayerShape& shape) {
  return shape.tokens() * train_flops_per_token(layer_model(shape), shape.seq);
}

LayerShape layer_shape_of(const ModelSpec& model, int seq, int batch) {
  std::string why;
  if (model.is_moe()) why = "is a mixture of experts";
  else if (model.mla) why = "uses multi-head latent attention";
  else if (model.mlp != MlpKind::swiglu) why = "has no SwiGLU MLP";
  else if (model.heads <= 0 || model.head_dim * model.heads != model.hidden) why = "has head_dim × heads ≠ hidden";
  if (!why.empty()) throw Error(fmt::format("model '{}' {}; gpuplan-bench's layer is dense GQA + SwiGLU", model.id, why));
  LayerShape s;
  s.name = model.id;
  s.hidden = static_cast<int>(model.hidden);
  s.heads = static_cast<int>(model.heads);
  s.kv_heads = static_cast<int>(model.kv_heads);
  s.ffn = static_cast<int>(model.ffn_hidden);
  s.seq = seq;
  s.batch = batch;
  return s;
}

std::string layer_shape_problem(const LayerShape& s) {
  if (s.hidden <= 0 || s.heads <= 0 || s.kv_heads <= 0 || s.ffn <= 0 || s.seq <= 0 || s.batch <= 0) {
    return "every size must be positive";
  }
  if (s.hidden % s.heads != 0) return fmt::format("heads ({}) must divide hidden ({})", s.heads, s.hidden);
  if (s.heads % s.kv_heads != 0) return fmt::format("kv_heads ({}) must divide heads ({})", s.kv_heads, s.heads);
  if (s.hidden % 16 || s.head_dim() % 16 || s.ffn % 16 || s.seq % 16) {
    return fmt::format("hidden ({}), head_dim ({}), ffn ({}) and seq ({}) must be multiples of 16", s.hidden,
                       s.head_dim(), s.ffn, s.seq);
  }
  return "";
}

std::vector<int> parse_flag_sizes(const std::string& flag, const std::string& text, std::size_t count,
                                  const char* count_word, const char* fields, const char* example) {
  std::vector<int> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    int value = 0;
    try {
      value = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size()) {
      throw Error(fmt::format("{} '{}': '{}' is not a whole number; want {}", flag, text, item, fields));
    }
    sizes.push_back(value);
  }
  if (sizes.size() != count) {
    throw Error(fmt::format("{} '{}': want {} numbers, {} (e.g. {})", flag, text, count_word, fields, example));
  }
  return sizes;
}

LayerShape parse_layer_shape(const std::string& text) {
  const std::vector<int> sizes = parse_flag_sizes("--layer", text, 6, "six", "hidden,heads,kv_heads,ffn,seq,batch",
                                                  "4096,32,8,14336,2048,1");
  LayerShape s{fmt::format("custom-{}", text), sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], sizes[5]};
  if (const std::string problem = layer_shape_problem(s); !problem.empty()) {
    throw Error(fmt::format("--layer '{}': {}", text, problem));
  }
  return s;
}

}  // namespace gpuplan
