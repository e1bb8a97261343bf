#include "calibration/step_layout.h"

namespace gpuplan {

LayerSizes::LayerSizes(const LayerShape& s) {
  const auto z = [](int v) { return static_cast<std::size_t>(v); };
  const std::size_t hidden = z(s.hidden), q_width = z(s.heads) * z(s.head_dim());
  const std::size_t qkv_width = q_width + 2 * z(s.kv_heads) * z(s.head_dim());
  wqkv = qkv_width * hidden;
  wo = hidden * q_width;
  wgu = 2 * z(s.ffn) * hidden;
  wd = hidden * z(s.ffn);
  norm = hidden;
}

StepLayout step_layout(const StepShape& shape) {
  const LayerSizes sizes(shape.layer);
  const std::size_t table = static_cast<std::size_t>(shape.vocab) * static_cast<std::size_t>(shape.layer.hidden);
  StepLayout l;
  std::size_t next = 0;
  auto take = [&](std::size_t count) {
    const std::size_t at = next;
    next += count;
    return at;
  };
  l.embedding = take(table);
  l.head = take(table);
  l.layers.resize(static_cast<std::size_t>(shape.layers));
  for (LayerOffsets& layer : l.layers) {
    layer.wqkv = take(sizes.wqkv);
    layer.wo = take(sizes.wo);
    layer.wgu = take(sizes.wgu);
    layer.wd = take(sizes.wd);
  }
  l.decayed = next;
  for (LayerOffsets& layer : l.layers) {
    layer.norm1 = take(sizes.norm);
    layer.norm2 = take(sizes.norm);
  }
  l.final_norm = take(sizes.norm);
  l.total = next;
  return l;
}

}  // namespace gpuplan
