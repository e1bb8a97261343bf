#include "report/default_system_report.h"

#include <fmt/format.h>

namespace gpuplan {
namespace {

std::string why_default(const Gpu& gpu) {
  return fmt::format("no --system named: the catalog system chosen for {} (catalog/system_choice.h); name another "
                     "with --system",
                     gpu.id);
}

}  // namespace

std::string default_system_text(const System* system, const Gpu& gpu, bool defaulted) {
  if (!defaulted || system == nullptr) return "";
  return fmt::format("system: {} = {}\n  ({})\n", system->id, system->name, why_default(gpu));
}

void add_default_system_json(nlohmann::ordered_json& j, const System* system, const Gpu& gpu, bool defaulted) {
  if (!defaulted || system == nullptr) return;
  j["default_system"] = {{"id", system->id}, {"name", system->name}, {"gpu", gpu.id}, {"why", why_default(gpu)}};
}

}  // namespace gpuplan
