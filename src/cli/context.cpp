#include "cli/context.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "workload/hf_config.h"

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

const ModelSpec& CliContext::resolve_model(const std::string& name_or_path, std::shared_ptr<ModelSpec>& owned) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string path;
  if (name_or_path.ends_with(".json") || fs::is_regular_file(name_or_path, ec)) {
    path = name_or_path;
  } else if (fs::is_directory(name_or_path, ec) && fs::is_regular_file(fs::path(name_or_path) / "config.json", ec)) {
    path = (fs::path(name_or_path) / "config.json").string();
  }
  if (path.empty()) return catalog().model(name_or_path);
  owned = std::make_shared<ModelSpec>(load_hf_config_file(path));
  return *owned;
}

void CliContext::print_json(const nlohmann::ordered_json& value) { out << value.dump(2) << "\n"; }

void add_calibration_json(nlohmann::ordered_json& j, const std::string& profile, const std::vector<std::string>& notes) {
  if (!profile.empty()) j["calibration"] = {{"profile", profile}, {"notes", notes}};
}

std::string calibration_text(const std::vector<std::string>& notes) {
  std::string s;
  for (const std::string& n : notes) s += "calibration " + n + "\n";
  return s;
}

}  // namespace gpuplan
