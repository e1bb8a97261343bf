#include "econ/figures.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"

namespace gpuplan {
namespace {

std::string first_source(const Provenance& p) {
  const auto cut = p.source.find(" ; ");
  return cut == std::string::npos ? p.source : p.source.substr(0, cut);
}

}  // namespace

const TcoInputs& econ_inputs(const Catalog& catalog) {
  for (const TcoInputs& t : catalog.tco_inputs) {
    if (t.id == "default") return t;
  }
  throw Error(
      "the catalog has no tco_inputs entry with id 'default' (data/econ/tco-inputs.toml); load one with "
      "--catalog or pass every figure on the command line");
}

std::string from_catalog(const DatedFigure& f, std::string_view table) {
  return fmt::format("catalog [{}], dated {}: {}", table, f.date, first_source(f.provenance));
}

SourcedFigure pick_figure(const std::optional<double>& override_value, const char* flag, const DatedFigure& f,
                          std::string_view table) {
  if (override_value) return {*override_value, flag};
  return {f.value, from_catalog(f, table)};
}

const System* tco_system_for(const Catalog& catalog, const TcoInputs& inputs, const Gpu& gpu) {
  for (const ServerPrice& s : inputs.servers) {
    const System* sys = catalog.find_system(s.system);
    if (sys && catalog.find_gpu(sys->gpu) == &gpu) return sys;
  }
  for (const System& sys : catalog.systems) {
    if (catalog.find_gpu(sys.gpu) == &gpu && sys.power_w && sys.kind == "node") return &sys;
  }
  return nullptr;
}

void require_positive(const std::optional<double>& v, const char* flag) {
  if (v && !(*v > 0 && std::isfinite(*v)))
    throw Error(fmt::format("{} {}: must be a positive number; give a value above 0", flag, *v));
}

void require_nonneg(const std::optional<double>& v, const char* flag) {
  if (v && !(*v >= 0 && std::isfinite(*v))) throw Error(fmt::format("{} {}: must be zero or positive", flag, *v));
}

void require_fraction(const std::optional<double>& v, const char* flag, bool zero_ok) {
  if (v && !((zero_ok ? *v >= 0 : *v > 0) && *v <= 1)) {
    throw Error(fmt::format("{} {}: must be in {}0, 1] (a fraction: 0.4 for 40%)", flag, *v, zero_ok ? "[" : "("));
  }
}

void require_pue(const std::optional<double>& v, const char* flag) {
  if (v && !(*v >= 1 && std::isfinite(*v)))
    throw Error(fmt::format("{} {}: must be at least 1 (facility power / IT power, typically 1.1-1.6)", flag, *v));
}

void require_count(const std::optional<int>& v, const char* flag) {
  if (v && *v < 1) throw Error(fmt::format("{} {}: must be at least 1", flag, *v));
}

}  // namespace gpuplan
