// Inference contexts from the built-in catalog, for the serving-model tests.
#pragma once

#include "catalog/catalog.h"
#include "infer/infer_context.h"
#include "infer/infer_plan.h"

namespace gpuplan::testing {

// Model, GPU and engine by catalog id.
inline InferContext infer_context(const char* model, const char* gpu, const char* engine = "vllm") {
  const Catalog& c = default_catalog();
  return make_infer_context(c, c.model(model), c.gpu(gpu), c.engine(engine));
}

// An fp8-weight, fp8-KV plan of `in` prompt and `out` output tokens in `mode` (the simulation
// and finite-run tests' plan).
inline InferPlan fp8_plan(std::int64_t in, std::int64_t out, InferMode mode) {
  InferPlan p;
  p.weights = Precision::fp8;
  p.kv = Precision::fp8;
  p.input_len = in;
  p.output_len = out;
  p.mode = mode;
  return p;
}

}  // namespace gpuplan::testing
