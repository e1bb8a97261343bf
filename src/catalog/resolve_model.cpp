#include "catalog/resolve_model.h"

#include <filesystem>

#include <fmt/format.h>

#include "catalog/hf_hub_cache.h"
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
      // A hub-cache model folder (models--org--name): its snapshot's config.json.
      if (auto cached = hf_cached_snapshot_config(name_or_path)) {
        owned = std::make_shared<ModelSpec>(load_hf_config_file(*cached));
        // models--org--name → org/name (the snapshot folder is a commit hash).
        std::string id = fs::path(name_or_path).lexically_normal().filename().string();
        if (id.empty()) id = fs::path(name_or_path).lexically_normal().parent_path().filename().string();
        if (id.starts_with("models--")) {
          id = id.substr(8);
          if (const auto sep = id.find("--"); sep != std::string::npos) id.replace(sep, 2, "/");
          owned->id = owned->name = id;
        }
        return *owned;
      }
      throw Error(fmt::format("model '{}' is a folder without a config.json; pass a Hugging Face config.json "
                              "file, a folder holding one, or a zoo id (gpuplan models)",
                              name_or_path));
    }
    path = config.string();
  } else if (name_or_path.ends_with(".json") || fs::exists(name_or_path, ec)) {
    path = name_or_path;  // load_hf_config_file refuses what is not a regular file, saying what it is
  }
  if (path.empty()) {
    if (const ModelSpec* zoo = catalog.find_model(name_or_path)) return *zoo;
    // "org/name": a Hugging Face model id, read from the local hub cache (no network).
    if (name_or_path.find('/') != std::string::npos) {
      if (auto cached = hf_cached_config(name_or_path)) {
        owned = std::make_shared<ModelSpec>(load_hf_config_file(*cached));
        owned->id = owned->name = name_or_path;
        return *owned;
      }
      throw Error(fmt::format("model '{}' is not in the zoo and not in the Hugging Face cache ({}); download its "
                              "config.json (huggingface-cli download {} config.json), pass the file, or pick a zoo "
                              "id (gpuplan models)",
                              name_or_path, hf_hub_cache_dir(), name_or_path));
    }
    return catalog.model(name_or_path);
  }
  owned = std::make_shared<ModelSpec>(load_hf_config_file(path));
  return *owned;
}

}  // namespace gpuplan
