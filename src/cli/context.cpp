#include "cli/context.h"

#include <nlohmann/json.hpp>

namespace gpuplan {

const Catalog& CliContext::catalog() {
  if (!loaded_) {
    CatalogOptions options;
    options.embedded = !no_embedded;
    options.user_paths = catalog_paths;
    catalog_ = load_catalog(options);
    loaded_ = true;
  }
  return catalog_;
}

void CliContext::print_json(const nlohmann::ordered_json& value) { out << value.dump(2) << "\n"; }

}  // namespace gpuplan
