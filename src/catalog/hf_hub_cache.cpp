#include "catalog/hf_hub_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace gpuplan {
namespace fs = std::filesystem;

std::string hf_hub_cache_dir() {
  if (const char* hub = std::getenv("HF_HUB_CACHE"); hub && *hub) return hub;
  if (const char* home = std::getenv("HF_HOME"); home && *home) return (fs::path(home) / "hub").string();
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return (fs::path(xdg) / "huggingface" / "hub").string();
  }
  const char* user = std::getenv("HOME");
  return (fs::path(user && *user ? user : ".") / ".cache" / "huggingface" / "hub").string();
}

std::optional<std::string> hf_cached_snapshot_config(const std::string& model_folder) {
  std::error_code ec;
  const fs::path snapshots = fs::path(model_folder) / "snapshots";
  if (!fs::is_directory(snapshots, ec)) return std::nullopt;
  // refs/main holds the commit hash the snapshot folder is named after.
  std::ifstream ref(fs::path(model_folder) / "refs" / "main");
  std::string revision;
  if (ref && std::getline(ref, revision) && !revision.empty()) {
    const fs::path config = snapshots / revision / "config.json";
    if (fs::is_regular_file(config, ec)) return config.string();
  }
  std::optional<fs::path> newest;
  fs::file_time_type newest_time{};
  for (const auto& entry : fs::directory_iterator(snapshots, ec)) {
    const fs::path config = entry.path() / "config.json";
    if (!fs::is_regular_file(config, ec)) continue;
    const auto t = fs::last_write_time(config, ec);
    if (!newest || t > newest_time) {
      newest = config;
      newest_time = t;
    }
  }
  if (!newest) return std::nullopt;
  return newest->string();
}

std::optional<std::string> hf_cached_config(const std::string& model_id) {
  const auto slash = model_id.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == model_id.size() ||
      model_id.find('/', slash + 1) != std::string::npos) {
    return std::nullopt;
  }
  // huggingface_hub's folder name: "models--" + id with "/" replaced by "--".
  const std::string folder = "models--" + model_id.substr(0, slash) + "--" + model_id.substr(slash + 1);
  return hf_cached_snapshot_config((fs::path(hf_hub_cache_dir()) / folder).string());
}

}  // namespace gpuplan
