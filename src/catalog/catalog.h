// The catalog: every GPU, link, switch, NIC, system, fabric, cloud offer and model gpuplan
// knows, loaded from the embedded defaults and then from user files (--catalog PATH), which
// add entries or replace entries with the same id. Immutable once loaded. The built-in tables
// are parsed on first use, a lookup by name parsing one file (catalog/catalog_table.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog_table.h"
#include "catalog/cloud.h"
#include "catalog/collective_params.h"
#include "catalog/efficiency.h"
#include "catalog/engine.h"
#include "catalog/framework.h"
#include "catalog/gpu.h"
#include "catalog/source_date.h"
#include "catalog/tco.h"
#include "catalog/topology.h"
#include "workload/model.h"

namespace gpuplan {

struct Catalog {
  CatalogTable<Gpu> gpus;
  CatalogTable<Link> links;
  CatalogTable<Switch> switches;
  CatalogTable<Nic> nics;
  CatalogTable<System> systems;
  CatalogTable<Fabric> fabrics;
  CatalogTable<CloudOffer> offers;
  CatalogTable<ModelSpec> models;
  CatalogTable<CollectiveParams> collective_params;  // collective cost model constants (data/fitted/collectives/)
  CatalogTable<Efficiency> efficiencies;  // fitted achievable-efficiency factors per GPU family
  CatalogTable<Framework> frameworks;     // fitted software figures per training framework family
  CatalogTable<TcoInputs> tco_inputs;      // economics inputs (data/econ/); the commands use id "default"
  CatalogTable<Engine> engines;  // serving engines: memory budget rules and overheads (data/engines/)
  CatalogTable<SourceDates> source_dates;  // publication dates of validation sources (data/validation/)

  // Lookups by id or alias, case-insensitive ("H100 SXM" finds "h100-sxm").
  // The find_* forms return nullptr; the others throw Error with the nearest names.
  const Gpu* find_gpu(std::string_view name) const;
  const Link* find_link(std::string_view name) const;
  const Switch* find_switch(std::string_view name) const;
  const Nic* find_nic(std::string_view name) const;
  const System* find_system(std::string_view name) const;
  const Fabric* find_fabric(std::string_view name) const;
  const ModelSpec* find_model(std::string_view name) const;
  const Engine* find_engine(std::string_view name) const;

  // find_gpu(name) == &gpu, without parsing the GPU `name` names (a system's, an offer's).
  bool is_gpu(std::string_view name, const Gpu& gpu) const;

  const Gpu& gpu(std::string_view name) const;
  const Link& link(std::string_view name) const;
  const Switch& switch_(std::string_view name) const;
  const Nic& nic(std::string_view name) const;
  const System& system(std::string_view name) const;
  const Fabric& fabric(std::string_view name) const;
  const ModelSpec& model(std::string_view name) const;
  const Engine& engine(std::string_view name) const;
};

struct CatalogOptions {
  bool embedded = true;                 // start from the built-in data
  std::vector<std::string> user_paths;  // files or directories (*.toml), in order
};

// Loads and validates everything; throws Error naming file, line and key on bad data, and
// on references to unknown ids (a system naming a GPU the catalog lacks).
Catalog load_catalog(const CatalogOptions& options = {});

// The built-in catalog, loaded once (thread-safe).
const Catalog& default_catalog();

// Parses one data file's text into `catalog` (used by the loader, tests and the fuzzer).
// `replace` lets an entry with an existing id replace it (user files); otherwise a
// duplicate id is an error.
void load_catalog_text(Catalog& catalog, std::string_view text, const std::string& file, bool replace);

// Checks cross-references (system → gpu, nic, switch; fabric → system; offer → gpu).
void validate_catalog(const Catalog& catalog);

}  // namespace gpuplan
