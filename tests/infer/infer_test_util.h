// Inference contexts from the built-in catalog, for the serving-model tests.
#pragma once

#include "catalog/catalog.h"
#include "infer/infer_context.h"

namespace gpuplan::testing {

// Model, GPU and engine by catalog id.
inline InferContext infer_context(const char* model, const char* gpu, const char* engine = "vllm") {
  const Catalog& c = default_catalog();
  return make_infer_context(c, c.model(model), c.gpu(gpu), c.engine(engine));
}

}  // namespace gpuplan::testing
