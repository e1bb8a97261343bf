#include "catalog/resolve_model.h"

#include <filesystem>

#include <fmt/format.h>

#include "core/error.h"
#include "workload/hf_config.h"

namespace gpuplan {

const ModelSpec& resolve_model(const Catalog& catalog, const std::string& name_or_path,
                               std::shared_ptr<ModelSpec>& owned) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool is_dir = fs::is_directory(name_or_path, ec);
  std::string path;
  if (is_dir) {
    // A zoo id wins over a stray folder of the same name in the working directory.
    if (!name_or_path.ends_with(".json")) {
      if (const ModelSpec* zoo = catalog.find_model(name_or_path)) return *zoo;
    }
    const fs::path config = fs::path(name_or_path) / "config.json";
    if (!fs::is_regular_file(config, ec)) {
      throw Error(fmt::format("model '{}' is a folder without a config.json; pass a Hugging Face config.json "
                              "file, a folder holding one, or a zoo id (gpuplan models)",
                              name_or_path));
    }
    path = config.string();
  } else if (name_or_path.ends_with(".json") || fs::exists(name_or_path, ec)) {
    if (!fs::is_regular_file(name_or_path, ec) && fs::exists(name_or_path, ec)) {
      throw Error(fmt::format("model '{}' is not a regular file; pass a Hugging Face config.json", name_or_path));
    }
    path = name_or_path;
  }
  if (path.empty()) return catalog.model(name_or_path);
  owned = std::make_shared<ModelSpec>(load_hf_config_file(path));
  return *owned;
}

}  // namespace gpuplan
