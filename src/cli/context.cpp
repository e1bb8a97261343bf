#include "cli/context.h"

#include <nlohmann/json.hpp>

#include "catalog/resolve_model.h"

namespace gpuplan {

const Catalog& CliContext::catalog() {
  if (shared_catalog != nullptr) return *shared_catalog;
  // The built-in catalog alone: the process's one copy, parsed on first use (catalog/load.cpp).
  if (!no_embedded && catalog_paths.empty()) return default_catalog();
  if (!loaded_) {
    CatalogOptions options;
    options.embedded = !no_embedded;
    options.user_paths = catalog_paths;
    catalog_ = load_catalog(options);
    loaded_ = true;
  }
  return catalog_;
}

const ModelSpec& CliContext::resolve_model(const std::string& name_or_path, std::shared_ptr<ModelSpec>& owned) {
  return gpuplan::resolve_model(catalog(), name_or_path, owned);
}

void CliContext::print_json(const nlohmann::ordered_json& value) { out << value.dump(2) << "\n"; }

}  // namespace gpuplan
