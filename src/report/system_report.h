// Text and JSON views of systems (nodes, racks), fabrics and cloud price offers: the tables
// behind `gpuplan systems`, `gpuplan system NAME` and `gpuplan clouds`.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/lookup_request.h"

namespace gpuplan {

nlohmann::ordered_json system_json(const SystemAnswer& system);  // with derived figures
nlohmann::ordered_json fabric_json(const SystemAnswer& fabric);  // levels from the node up
nlohmann::ordered_json systems_json(const SystemsAnswer& answer);  // every system and fabric
std::string systems_table_text(const SystemsAnswer& answer);
std::string system_detail_text(const SystemAnswer& system);
std::string fabric_detail_text(const SystemAnswer& fabric);

nlohmann::ordered_json offers_json(const std::vector<const CloudOffer*>& offers);
std::string offers_table_text(const std::vector<const CloudOffer*>& offers);

// `gpuplan systems`, `gpuplan system NAME` and `gpuplan clouds` (catalog/lookup_request.h).
nlohmann::ordered_json to_json(const SystemsAnswer& answer);
std::string to_text(const SystemsAnswer& answer);
nlohmann::ordered_json to_json(const SystemAnswer& answer);
std::string to_text(const SystemAnswer& answer);
nlohmann::ordered_json to_json(const CloudsAnswer& answer);
std::string to_text(const CloudsAnswer& answer);

// "450 GB/s", "3.6 TB/s", "2.05 TB/s": three significant digits, trailing zeros dropped.
std::string format_bandwidth(double bytes_per_s);

}  // namespace gpuplan
