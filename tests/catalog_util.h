// The built-in catalog under the short name the model tests use: cat().model("llama3-8b").
#pragma once

#include "catalog/catalog.h"

namespace gpuplan::testing {

inline const Catalog& cat() { return default_catalog(); }

}  // namespace gpuplan::testing
