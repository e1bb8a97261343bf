#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include <fmt/format.h>

#include "catalog/catalog.h"
#include "catalog/embedded_data.h"
#include "catalog/parsers.h"
#include "core/error.h"
#include "core/input_file.h"
#include "core/strings.h"

namespace gpuplan {
namespace {

template <typename T>
bool matches(const T& entry, const std::string& key) {
  if (normalize_name(entry.id) == key) return true;
  return std::any_of(entry.aliases.begin(), entry.aliases.end(),
                     [&](const std::string& a) { return normalize_name(a) == key; });
}

template <typename T>
const T* find_in(const std::vector<T>& entries, std::string_view name) {
  const std::string key = normalize_name(name);
  for (const auto& e : entries) {
    if (matches(e, key)) return &e;
  }
  return nullptr;
}

template <typename T>
const T& get_in(const std::vector<T>& entries, std::string_view name, std::string_view what) {
  if (const T* e = find_in(entries, name)) return *e;
  // Suggest by id or alias, but name each entry once, by its id.
  std::vector<std::string> names;
  for (const auto& e : entries) {
    names.push_back(e.id);
    for (const auto& a : e.aliases) names.push_back(a);
  }
  std::vector<std::string> ids;
  for (const auto& near : nearest_names(name, names, names.size())) {
    const T* e = find_in(entries, near);
    if (e && std::find(ids.begin(), ids.end(), e->id) == ids.end()) ids.push_back(e->id);
    if (ids.size() == 3) break;
  }
  std::string msg = fmt::format("unknown {} '{}'", what, name);
  if (!ids.empty()) msg += "; did you mean " + join(ids, ", ") + "?";
  throw Error(msg);
}

// The files one --catalog argument loaded so far. Among them an id may be defined once: which
// of two files would win is an accident of file order, so a duplicate is an error naming both.
// Replacing an entry loaded earlier (built in, or from an earlier --catalog argument) is the
// documented way to override it.
using Batch = std::vector<std::string>;

// Adds `entry`, or replaces the entry with the same id (or alias) when `replace` is set.
template <typename T>
void insert(std::vector<T>& entries, T entry, bool replace, const Batch& batch, std::string_view what) {
  std::vector<std::string> keys{normalize_name(entry.id)};
  for (const auto& a : entry.aliases) keys.push_back(normalize_name(a));
  for (auto& existing : entries) {
    for (const auto& key : keys) {
      if (!matches(existing, key)) continue;
      if (replace && normalize_name(existing.id) == keys.front()) {
        if (std::find(batch.begin(), batch.end(), existing.provenance.file) != batch.end()) {
          throw Error(fmt::format("{}: duplicate {} id '{}': also defined in {}, in the same --catalog argument; "
                                  "keep one of the two files (to override an entry, put the new file in a later "
                                  "--catalog argument)",
                                  entry.provenance.file, what, entry.id, existing.provenance.file));
        }
        existing = std::move(entry);
        return;
      }
      throw Error(fmt::format("{}: duplicate {} id or alias '{}' (already defined in {}); ids and aliases "
                              "must be unique, or use the same id in a --catalog file to replace an entry",
                              entry.provenance.file, what, key, existing.provenance.file));
    }
  }
  entries.push_back(std::move(entry));
}

void load_text(Catalog& catalog, std::string_view text, const std::string& file, bool replace, const Batch& batch);

std::string read_file(const std::filesystem::path& path) {
  return read_input_file(path.string(), "catalog file");
}

void load_user_path(Catalog& catalog, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    throw Error(fmt::format("--catalog '{}': no such file or directory", path));
  }
  if (fs::is_directory(status)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(path, ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".toml") files.push_back(entry.path());
    }
    if (ec) throw Error(fmt::format("--catalog '{}': {}", path, ec.message()));
    std::sort(files.begin(), files.end());
    Batch batch;
    for (const auto& f : files) {
      load_text(catalog, read_file(f), f.string(), true, batch);
      batch.push_back(f.string());
    }
    return;
  }
  load_text(catalog, read_file(path), path, true, {});
}

}  // namespace

const Gpu* Catalog::find_gpu(std::string_view n) const { return find_in(gpus, n); }
const Link* Catalog::find_link(std::string_view n) const { return find_in(links, n); }
const Switch* Catalog::find_switch(std::string_view n) const { return find_in(switches, n); }
const Nic* Catalog::find_nic(std::string_view n) const { return find_in(nics, n); }
const System* Catalog::find_system(std::string_view n) const { return find_in(systems, n); }
const Fabric* Catalog::find_fabric(std::string_view n) const { return find_in(fabrics, n); }
const ModelSpec* Catalog::find_model(std::string_view n) const { return find_in(models, n); }
const Engine* Catalog::find_engine(std::string_view n) const { return find_in(engines, n); }

const Gpu& Catalog::gpu(std::string_view n) const { return get_in(gpus, n, "GPU"); }
const Link& Catalog::link(std::string_view n) const { return get_in(links, n, "link"); }
const Switch& Catalog::switch_(std::string_view n) const { return get_in(switches, n, "switch"); }
const Nic& Catalog::nic(std::string_view n) const { return get_in(nics, n, "NIC"); }
const System& Catalog::system(std::string_view n) const { return get_in(systems, n, "system"); }
const Fabric& Catalog::fabric(std::string_view n) const { return get_in(fabrics, n, "fabric"); }
const ModelSpec& Catalog::model(std::string_view n) const { return get_in(models, n, "model"); }
const Engine& Catalog::engine(std::string_view n) const { return get_in(engines, n, "engine"); }

void load_catalog_text(Catalog& catalog, std::string_view text, const std::string& file, bool replace) {
  load_text(catalog, text, file, replace, {});
}

namespace {

void load_text(Catalog& catalog, std::string_view text, const std::string& file, bool replace, const Batch& batch) {
  const toml::table table = parse_toml(text, file);
  Fields top(table, file, "");
  const std::string kind = top.str("kind");
  if (kind == "gpu") {
    insert(catalog.gpus, parse_gpu(top), replace, batch, "GPU");
  } else if (kind == "link") {
    insert(catalog.links, parse_link(top), replace, batch, "link");
  } else if (kind == "switch") {
    insert(catalog.switches, parse_switch(top), replace, batch, "switch");
  } else if (kind == "nic") {
    insert(catalog.nics, parse_nic(top), replace, batch, "NIC");
  } else if (kind == "system") {
    insert(catalog.systems, parse_system(top), replace, batch, "system");
  } else if (kind == "fabric") {
    insert(catalog.fabrics, parse_fabric(top), replace, batch, "fabric");
  } else if (kind == "offers") {
    for (auto& offer : parse_offers(top)) catalog.offers.push_back(std::move(offer));
  } else if (kind == "model") {
    insert(catalog.models, parse_model(top), replace, batch, "model");
  } else if (kind == "collective_params") {
    insert(catalog.collective_params, parse_collective_params(top), replace, batch, "collective_params");
  } else if (kind == "efficiency") {
    insert(catalog.efficiencies, parse_efficiency(top), replace, batch, "efficiency");
  } else if (kind == "framework") {
    insert(catalog.frameworks, parse_framework(top), replace, batch, "framework");
  } else if (kind == "tco_inputs") {
    insert(catalog.tco_inputs, parse_tco_inputs(top), replace, batch, "tco_inputs");
  } else if (kind == "engine") {
    insert(catalog.engines, parse_engine(top), replace, batch, "engine");
  } else if (kind == "source_dates") {
    insert(catalog.source_dates, parse_source_dates(top), replace, batch, "source_dates");
  } else {
    top.fail("kind", fmt::format("unknown kind '{}'; use gpu, link, switch, nic, system, fabric, offers, "
                                 "model, efficiency, framework, engine, collective_params, tco_inputs or source_dates", kind));
  }
  top.finish();
}

}  // namespace

Catalog load_catalog(const CatalogOptions& options) {
  Catalog catalog;
  if (options.embedded) {
    for (const auto& file : embedded_data_files()) {
      load_catalog_text(catalog, file.content, std::string("<embedded>/") + file.path, false);
    }
  }
  for (const auto& path : options.user_paths) load_user_path(catalog, path);
  validate_catalog(catalog);
  return catalog;
}

const Catalog& default_catalog() {
  static const Catalog catalog = load_catalog();
  return catalog;
}

}  // namespace gpuplan
