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
#include "catalog/catalog_table.h"
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
bool matches(const T& entry, std::string_view key) {
  if (normalized_equals(entry.id, key)) return true;
  return std::any_of(entry.aliases.begin(), entry.aliases.end(),
                     [&](const std::string& a) { return normalized_equals(a, key); });
}

// The build's index of an embedded file names `key` (its id or one of its aliases, each
// followed by '\n' in `aliases`).
bool index_matches(const EmbeddedFile& file, std::string_view key) {
  if (normalized_equals(file.id, key)) return true;
  std::string_view aliases = file.aliases;
  for (std::size_t end = aliases.find('\n'); end != std::string_view::npos; end = aliases.find('\n')) {
    if (normalized_equals(aliases.substr(0, end), key)) return true;
    aliases.remove_prefix(end + 1);
  }
  return false;
}

template <typename T>
const T* find_in(const CatalogTable<T>& entries, std::string_view name) {
  return entries.find_normalized(normalize_name(name));
}

template <typename T>
const T& get_in(const CatalogTable<T>& entries, std::string_view name, std::string_view what) {
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

std::vector<std::string> normalized_keys(const std::string& id, const std::vector<std::string>& aliases) {
  std::vector<std::string> keys{normalize_name(id)};
  for (const auto& a : aliases) keys.push_back(normalize_name(a));
  return keys;
}

[[noreturn]] void throw_duplicate(const std::string& file, std::string_view what, const std::string& key,
                                  const std::string& existing_file) {
  throw Error(fmt::format("{}: duplicate {} id or alias '{}' (already defined in {}); ids and aliases "
                          "must be unique, or use the same id in a --catalog file to replace an entry",
                          file, what, key, existing_file));
}

// Adds `entry`, or replaces the entry with the same id (or alias) when `replace` is set.
template <typename T>
void insert(std::vector<T>& entries, T entry, bool replace, const Batch& batch, std::string_view what) {
  const std::vector<std::string> keys = normalized_keys(entry.id, entry.aliases);
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
      throw_duplicate(entry.provenance.file, what, key, existing.provenance.file);
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

bool Catalog::is_gpu(std::string_view n, const Gpu& gpu) const { return gpus.names(normalize_name(n), gpu); }

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
// the catalog.
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
        if constexpr (std::is_same_v<T, Gpu>) insert(catalog.gpus.all(), std::move(e), replace, batch, "GPU");
        if constexpr (std::is_same_v<T, Link>) insert(catalog.links.all(), std::move(e), replace, batch, "link");
        if constexpr (std::is_same_v<T, Switch>) insert(catalog.switches.all(), std::move(e), replace, batch, "switch");
        if constexpr (std::is_same_v<T, Nic>) insert(catalog.nics.all(), std::move(e), replace, batch, "NIC");
        if constexpr (std::is_same_v<T, System>) insert(catalog.systems.all(), std::move(e), replace, batch, "system");
        if constexpr (std::is_same_v<T, Fabric>) insert(catalog.fabrics.all(), std::move(e), replace, batch, "fabric");
        if constexpr (std::is_same_v<T, std::vector<CloudOffer>>) {
          for (auto& offer : e) catalog.offers.all().push_back(std::move(offer));
        }
        if constexpr (std::is_same_v<T, ModelSpec>) insert(catalog.models.all(), std::move(e), replace, batch, "model");
        if constexpr (std::is_same_v<T, CollectiveParams>) {
          insert(catalog.collective_params.all(), std::move(e), replace, batch, "collective_params");
        }
        if constexpr (std::is_same_v<T, Efficiency>) {
          insert(catalog.efficiencies.all(), std::move(e), replace, batch, "efficiency");
        }
        if constexpr (std::is_same_v<T, Framework>) insert(catalog.frameworks.all(), std::move(e), replace, batch, "framework");
        if constexpr (std::is_same_v<T, TcoInputs>) insert(catalog.tco_inputs.all(), std::move(e), replace, batch, "tco_inputs");
        if constexpr (std::is_same_v<T, Engine>) insert(catalog.engines.all(), std::move(e), replace, batch, "engine");
        if constexpr (std::is_same_v<T, SourceDates>) {
          insert(catalog.source_dates.all(), std::move(e), replace, batch, "source_dates");
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

// What a table holds per file: one entry, or the list of offers of an `offers` file.
template <typename T>
using FileEntry = std::conditional_t<std::is_same_v<T, CloudOffer>, std::vector<CloudOffer>, T>;

// Which files fill a table (their top-level `kind`), and what a duplicate calls its entries.
template <typename T>
struct TableKind;
#define GPUPLAN_TABLE_KIND(Type, kind_word, what_word)  \
  template <>                                           \
  struct TableKind<Type> {                              \
    static constexpr std::string_view kind = kind_word; \
    static constexpr std::string_view what = what_word; \
  };
GPUPLAN_TABLE_KIND(Gpu, "gpu", "GPU")
GPUPLAN_TABLE_KIND(Link, "link", "link")
GPUPLAN_TABLE_KIND(Switch, "switch", "switch")
GPUPLAN_TABLE_KIND(Nic, "nic", "NIC")
GPUPLAN_TABLE_KIND(System, "system", "system")
GPUPLAN_TABLE_KIND(Fabric, "fabric", "fabric")
GPUPLAN_TABLE_KIND(CloudOffer, "offers", "offer")
GPUPLAN_TABLE_KIND(ModelSpec, "model", "model")
GPUPLAN_TABLE_KIND(CollectiveParams, "collective_params", "collective_params")
GPUPLAN_TABLE_KIND(Efficiency, "efficiency", "efficiency")
GPUPLAN_TABLE_KIND(Framework, "framework", "framework")
GPUPLAN_TABLE_KIND(TcoInputs, "tco_inputs", "tco_inputs")
GPUPLAN_TABLE_KIND(Engine, "engine", "engine")
GPUPLAN_TABLE_KIND(SourceDates, "source_dates", "source_dates")
#undef GPUPLAN_TABLE_KIND

// One embedded file, parsed and checked as load_text would (unknown keys included).
template <typename T>
FileEntry<T> parse_embedded(const EmbeddedFile& embedded) {
  const std::string file = std::string("<embedded>/") + embedded.path;
  const toml::table table = parse_toml(embedded.content, file);
  Fields top(table, file, "");
  ParsedEntry parsed = parse_entry(top);
  top.finish();
  auto* entry = std::get_if<FileEntry<T>>(&parsed);
  if (!entry) {
    throw Error(fmt::format("{}: kind: the build indexed this file as '{}', the parser read another kind "
                            "(cmake/embed_data.cmake)", file, embedded.kind));
  }
  return std::move(*entry);
}

// Runs work(i) for i in [0, n), on up to four threads when there is enough to share: parsing is
// independent per file. The first failure in index order is rethrown, as a one-by-one load
// would have thrown it.
template <typename Work>
void parse_in_parallel(std::size_t n, const Work& work) {
  std::vector<std::exception_ptr> failures(n);
  std::atomic<std::size_t> next{0};
  auto run = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        work(i);
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  };
  // A thread costs ~0.1 ms to start; a file ~0.05-0.5 ms to parse.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = n < 8 ? 1 : std::min<std::size_t>({cores, 4, n / 4});
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(run);
  run();
  for (std::thread& t : helpers) t.join();
  for (const auto& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

// Filling a table, or one of its files, happens under this lock: rare (once per table and
// file per process), and never nested.
std::mutex& lazy_table_mutex() {
  static std::mutex mutex;
  return mutex;
}

template <typename T>
void make_lazy_table(CatalogTable<T>& table, std::span<const EmbeddedFile> files) {
  std::vector<const EmbeddedFile*> mine;
  for (const EmbeddedFile& f : files) {
    if (f.kind == TableKind<T>::kind) mine.push_back(&f);
  }
  table.make_lazy(std::move(mine));
}

// The built-in catalog: each table a lazy view of its embedded files (catalog/catalog_table.h).
// The embedded data is checked whole by the tests (tests/catalog/load_test.cpp: every file
// parses, the build's index agrees with the parsed ids and aliases, validate_catalog passes),
// so a command reads only what it asks for.
const Catalog& embedded_catalog() {
  static const Catalog catalog = [] {
    const std::span<const EmbeddedFile> files = embedded_data_files();
    for (const EmbeddedFile& f : files) {
      static constexpr std::string_view kKinds[] = {"gpu", "link", "switch", "nic", "system",
                                                    "fabric", "offers", "model", "collective_params",
                                                    "efficiency", "framework", "tco_inputs", "engine",
                                                    "source_dates"};
      if (std::find(std::begin(kKinds), std::end(kKinds), std::string_view(f.kind)) == std::end(kKinds)) {
        throw Error(fmt::format("<embedded>/{}: kind: unknown kind '{}'", f.path, f.kind));
      }
    }
    Catalog c;
    make_lazy_table(c.gpus, files);
    make_lazy_table(c.links, files);
    make_lazy_table(c.switches, files);
    make_lazy_table(c.nics, files);
    make_lazy_table(c.systems, files);
    make_lazy_table(c.fabrics, files);
    make_lazy_table(c.offers, files);
    make_lazy_table(c.models, files);
    make_lazy_table(c.collective_params, files);
    make_lazy_table(c.efficiencies, files);
    make_lazy_table(c.frameworks, files);
    make_lazy_table(c.tco_inputs, files);
    make_lazy_table(c.engines, files);
    make_lazy_table(c.source_dates, files);
    return c;
  }();
  return catalog;
}

}  // namespace

template <typename T>
void CatalogTable<T>::make_lazy(std::vector<const EmbeddedFile*> files) {
  const std::size_t n = files.size();
  reset({});
  if (n == 0) return;
  files_ = std::move(files);
  ready_ = std::make_unique<std::atomic<bool>[]>(n);
  for (std::size_t i = 0; i < n; ++i) ready_[i].store(false, std::memory_order_relaxed);
  if constexpr (!std::is_same_v<T, CloudOffer>) items_.resize(n);
  complete_.store(false, std::memory_order_release);
}

template <typename T>
void CatalogTable<T>::copy_from(const CatalogTable& other) {
  std::lock_guard<std::mutex> lock(lazy_table_mutex());
  items_ = other.items_;
  files_ = other.files_;
  ready_.reset();
  if (!files_.empty()) {
    ready_ = std::make_unique<std::atomic<bool>[]>(files_.size());
    for (std::size_t i = 0; i < files_.size(); ++i) {
      ready_[i].store(other.ready_[i].load(std::memory_order_acquire), std::memory_order_relaxed);
    }
  }
  complete_.store(other.complete_.load(std::memory_order_acquire), std::memory_order_release);
}

template <typename T>
const T& CatalogTable<T>::slot(std::size_t index) const {
  if constexpr (std::is_same_v<T, CloudOffer>) {
    return all().at(index);  // one file holds many offers: no slot per file
  } else if (!ready_[index].load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(lazy_table_mutex());
    if (!ready_[index].load(std::memory_order_relaxed)) {
      items_[index] = parse_embedded<T>(*files_[index]);
      ready_[index].store(true, std::memory_order_release);
    }
  }
  return items_[index];
}

template <typename T>
void CatalogTable<T>::complete() const {
  std::lock_guard<std::mutex> lock(lazy_table_mutex());
  if (complete_.load(std::memory_order_relaxed)) return;
  if constexpr (std::is_same_v<T, CloudOffer>) {
    std::vector<std::vector<CloudOffer>> parsed(files_.size());
    parse_in_parallel(files_.size(), [&](std::size_t i) { parsed[i] = parse_embedded<T>(*files_[i]); });
    for (auto& offers : parsed) {
      for (auto& offer : offers) items_.push_back(std::move(offer));
    }
  } else {
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < files_.size(); ++i) {
      if (!ready_[i].load(std::memory_order_relaxed)) todo.push_back(i);
    }
    parse_in_parallel(todo.size(), [&](std::size_t k) { items_[todo[k]] = parse_embedded<T>(*files_[todo[k]]); });
    for (std::size_t i : todo) ready_[i].store(true, std::memory_order_release);
    // The ids and aliases are unique within the table, as entering the files one by one checks.
    for (std::size_t i = 0; i < items_.size(); ++i) {
      const std::vector<std::string> keys = normalized_keys(items_[i].id, items_[i].aliases);
      for (std::size_t j = 0; j < i; ++j) {
        for (const auto& key : keys) {
          if (matches(items_[j], key)) {
            throw_duplicate(items_[i].provenance.file, TableKind<T>::what, key, items_[j].provenance.file);
          }
        }
      }
    }
  }
  complete_.store(true, std::memory_order_release);
}

template <typename T>
const T* CatalogTable<T>::find_normalized(std::string_view key) const {
  if constexpr (std::is_same_v<T, CloudOffer>) {
    return nullptr;  // offers have no id
  } else {
    if (complete_.load(std::memory_order_acquire)) {
      for (const T& e : items_) {
        if (matches(e, key)) return &e;
      }
      return nullptr;
    }
    // Entries are unique by id and alias (checked when the table is filled, and by the tests
    // for the embedded files), so the first file whose index names the key holds the entry.
    for (std::size_t i = 0; i < files_.size(); ++i) {
      if (index_matches(*files_[i], key)) return &slot(i);
    }
    return nullptr;
  }
}

template <typename T>
bool CatalogTable<T>::names(std::string_view key, const T& entry) const {
  if constexpr (std::is_same_v<T, CloudOffer>) {
    return false;  // offers have no id
  } else {
    if (complete_.load(std::memory_order_acquire)) return find_normalized(key) == &entry;
    for (std::size_t i = 0; i < files_.size(); ++i) {
      if (index_matches(*files_[i], key)) return &items_[i] == &entry;  // slots never move
    }
    return false;
  }
}

template class CatalogTable<Gpu>;
template class CatalogTable<Link>;
template class CatalogTable<Switch>;
template class CatalogTable<Nic>;
template class CatalogTable<System>;
template class CatalogTable<Fabric>;
template class CatalogTable<CloudOffer>;
template class CatalogTable<ModelSpec>;
template class CatalogTable<CollectiveParams>;
template class CatalogTable<Efficiency>;
template class CatalogTable<Framework>;
template class CatalogTable<TcoInputs>;
template class CatalogTable<Engine>;
template class CatalogTable<SourceDates>;

Catalog load_catalog(const CatalogOptions& options) {
  if (options.embedded && options.user_paths.empty()) return embedded_catalog();
  Catalog catalog = options.embedded ? embedded_catalog() : Catalog{};
  for (const auto& path : options.user_paths) load_user_path(catalog, path);
  validate_catalog(catalog);
  return catalog;
}

const Catalog& default_catalog() { return embedded_catalog(); }

}  // namespace gpuplan
