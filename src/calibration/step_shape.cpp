#include "calibration/step_shape.h"

#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "workload/params.h"

namespace gpuplan {

ModelSpec step_model(const StepShape& shape) {
  ModelSpec m = layer_model(shape.layer);
  m.layers = shape.layers;
  m.vocab = shape.vocab;
  m.tied_embeddings = false;  // the benchmark keeps an embedding table and an LM head of its own
  return m;
}

double step_train_flops(const StepShape& shape) {
  return shape.tokens() * train_flops_per_token(step_model(shape), shape.layer.seq);
}

std::string step_shape_problem(const StepShape& shape) {
  if (const std::string problem = layer_shape_problem(shape.layer); !problem.empty()) return problem;
  if (shape.layers <= 0) return fmt::format("layers ({}) must be at least 1", shape.layers);
  if (shape.vocab <= 0 || shape.vocab % 16) {
    return fmt::format("vocab ({}) must be a positive multiple of 16", shape.vocab);
  }
  return "";
}

StepShape parse_step_shape(const std::string& text) {
  const std::vector<int> sizes = parse_flag_sizes("--step", text, 8, "eight",
                                                  "layers,hidden,heads,kv_heads,ffn,vocab,seq,batch",
                                                  "16,2048,32,8,8192,128256,2048,1");
  StepShape s;
  s.layer = {fmt::format("custom-step-{}", text), sizes[1], sizes[2], sizes[3], sizes[4], sizes[6], sizes[7]};
  s.layers = sizes[0];
  s.vocab = sizes[5];
  if (const std::string problem = step_shape_problem(s); !problem.empty()) {
    throw Error(fmt::format("--step '{}': {}", text, problem));
  }
  return s;
}

}  // namespace gpuplan
