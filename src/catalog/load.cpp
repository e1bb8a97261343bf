#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <thread>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "catalog/catalog.h"
#include "catalog/embedded_data.h"
#include "catalog/parsers.h"
#include "core/error.h"
#include "core/input_file.h"
#include "core/strings.h"

namespace gpuplan {
namespace {

// normalize_name(name) == key, without building the normalized string: loading the catalog
// compares every new id and alias with every earlier one, and every lookup scans a table, so
// the allocating form cost about a tenth of a simple command's time (docs/performance.md).
bool normalized_equals(std::string_view name, std::string_view key) {
  if (name.size() != key.size()) return false;  // normalize_name keeps the length
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
    if (c == ' ' || c == '_') c = '-';
    if (c != key[i]) return false;
  }
  return true;
}

template <typename T>
bool matches(const T& entry, const std::string& key) {
  if (normalized_equals(entry.id, key)) return true;
  return std::any_of(entry.aliases.begin(), entry.aliases.end(),
                     [&](const std::string& a) { return normalized_equals(a, key); });
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

// One data file's entry (or, for kind = "offers", its list of offers), parsed but not yet in
// the catalog: parsing is independent per file and runs on several threads at start
// (load_embedded), entering the catalog is in file order.
using ParsedEntry = std::variant<Gpu, Link, Switch, Nic, System, Fabric, std::vector<CloudOffer>, ModelSpec,
                                 CollectiveParams, Efficiency, Framework, TcoInputs, Engine, SourceDates>;

ParsedEntry parse_entry(Fields& top) {
  const std::string kind = top.str("kind");
  if (kind == "gpu") return parse_gpu(top);
  if (kind == "link") return parse_link(top);
  if (kind == "switch") return parse_switch(top);
  if (kind == "nic") return parse_nic(top);
  if (kind == "system") return parse_system(top);
  if (kind == "fabric") return parse_fabric(top);
  if (kind == "offers") return parse_offers(top);
  if (kind == "model") return parse_model(top);
  if (kind == "collective_params") return parse_collective_params(top);
  if (kind == "efficiency") return parse_efficiency(top);
  if (kind == "framework") return parse_framework(top);
  if (kind == "tco_inputs") return parse_tco_inputs(top);
  if (kind == "engine") return parse_engine(top);
  if (kind == "source_dates") return parse_source_dates(top);
  top.fail("kind", fmt::format("unknown kind '{}'; use gpu, link, switch, nic, system, fabric, offers, "
                               "model, efficiency, framework, engine, collective_params, tco_inputs or source_dates", kind));
  throw Error("unreachable");  // fail() throws
}

void insert_entry(Catalog& catalog, ParsedEntry&& parsed, bool replace, const Batch& batch) {
  std::visit(
      [&](auto&& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, Gpu>) insert(catalog.gpus, std::move(e), replace, batch, "GPU");
        if constexpr (std::is_same_v<T, Link>) insert(catalog.links, std::move(e), replace, batch, "link");
        if constexpr (std::is_same_v<T, Switch>) insert(catalog.switches, std::move(e), replace, batch, "switch");
        if constexpr (std::is_same_v<T, Nic>) insert(catalog.nics, std::move(e), replace, batch, "NIC");
        if constexpr (std::is_same_v<T, System>) insert(catalog.systems, std::move(e), replace, batch, "system");
        if constexpr (std::is_same_v<T, Fabric>) insert(catalog.fabrics, std::move(e), replace, batch, "fabric");
        if constexpr (std::is_same_v<T, std::vector<CloudOffer>>) {
          for (auto& offer : e) catalog.offers.push_back(std::move(offer));
        }
        if constexpr (std::is_same_v<T, ModelSpec>) insert(catalog.models, std::move(e), replace, batch, "model");
        if constexpr (std::is_same_v<T, CollectiveParams>) {
          insert(catalog.collective_params, std::move(e), replace, batch, "collective_params");
        }
        if constexpr (std::is_same_v<T, Efficiency>) {
          insert(catalog.efficiencies, std::move(e), replace, batch, "efficiency");
        }
        if constexpr (std::is_same_v<T, Framework>) insert(catalog.frameworks, std::move(e), replace, batch, "framework");
        if constexpr (std::is_same_v<T, TcoInputs>) insert(catalog.tco_inputs, std::move(e), replace, batch, "tco_inputs");
        if constexpr (std::is_same_v<T, Engine>) insert(catalog.engines, std::move(e), replace, batch, "engine");
        if constexpr (std::is_same_v<T, SourceDates>) {
          insert(catalog.source_dates, std::move(e), replace, batch, "source_dates");
        }
      },
      std::move(parsed));
}

void load_text(Catalog& catalog, std::string_view text, const std::string& file, bool replace, const Batch& batch) {
  const toml::table table = parse_toml(text, file);
  Fields top(table, file, "");
  insert_entry(catalog, parse_entry(top), replace, batch);
  top.finish();
}

// A file parsed on a worker thread: its table (which `top` points into), its entry, or what
// the parse threw.
struct ParsedFile {
  std::string file;
  toml::table table;
  std::optional<Fields> top;
  std::optional<ParsedEntry> entry;
  std::exception_ptr failure;
};

// The embedded files, as load_text one after the other would load them, with the parsing (nine
// tenths of the time; docs/performance.md, "Start-up") spread over up to four threads. The
// entries enter the catalog in file order, and the first file that fails (in that order) throws
// what it would have thrown loading alone.
void load_embedded(Catalog& catalog) {
  const std::span<const EmbeddedFile> files = embedded_data_files();
  std::vector<std::unique_ptr<ParsedFile>> parsed(files.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      auto p = std::make_unique<ParsedFile>();
      p->file = std::string("<embedded>/") + files[i].path;
      try {
        p->table = parse_toml(files[i].content, p->file);
        p->top.emplace(p->table, p->file, "");
        p->entry.emplace(parse_entry(*p->top));
      } catch (...) {
        p->failure = std::current_exception();
      }
      parsed[i] = std::move(p);
    }
  };
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < std::min(cores, 4u); ++t) helpers.emplace_back(work);
  work();
  for (std::thread& t : helpers) t.join();
  for (auto& p : parsed) {
    if (p->failure) std::rethrow_exception(p->failure);
    insert_entry(catalog, std::move(*p->entry), false, {});
    p->top->finish();
  }
}

// The embedded files, parsed and checked once per process: every later load starts from a copy.
// The test binary answers many commands in one process, and each used to parse all ~300 kB of
// TOML again (docs/performance.md, "Speed budget, second round").
const Catalog& embedded_catalog() {
  static const Catalog catalog = [] {
    Catalog c;
    load_embedded(c);
    validate_catalog(c);
    return c;
  }();
  return catalog;
}

}  // namespace

Catalog load_catalog(const CatalogOptions& options) {
  if (options.embedded && options.user_paths.empty()) return embedded_catalog();
  Catalog catalog = options.embedded ? embedded_catalog() : Catalog{};
  for (const auto& path : options.user_paths) load_user_path(catalog, path);
  validate_catalog(catalog);
  return catalog;
}

const Catalog& default_catalog() { return embedded_catalog(); }

}  // namespace gpuplan
