// The catalog TOML `gpuplan import-topology` writes (a `kind = "system"` entry the user keeps and
// passes back with --catalog FILE), and its JSON form.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "catalog/topology_import.h"

namespace gpuplan {

// `retrieved` is the date written into the file (YYYY-MM-DD).
std::string imported_system_toml(const ImportedTopology& imported, const std::string& retrieved);
nlohmann::ordered_json imported_system_json(const ImportedTopology& imported, const std::string& retrieved);

}  // namespace gpuplan
