// The built-in catalog under the short name the model tests use: cat().model("llama3-8b"),
// and the DGX H100 fixture of the training-mechanism tests.
#pragma once

#include "catalog/catalog.h"

namespace gpuplan::testing {

inline const Catalog& cat() { return default_catalog(); }

// An H100 SXM in a DGX H100 node, for tests that build a training context on the catalog.
struct DgxH100 {
  const Catalog& catalog = default_catalog();
  const Gpu& gpu = catalog.gpu("h100-sxm");
  const System& system = catalog.system("dgx-h100");
};

}  // namespace gpuplan::testing
