// JSON values that several reports write the same way.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/provenance.h"

namespace gpuplan {

// {"source", "retrieved", "file"}: where a catalog entry (or one of its sections) came from.
nlohmann::ordered_json provenance_json(const Provenance& p);

// `v` where it is positive, else null: a figure of 0 is one the entry does not state (or have).
nlohmann::ordered_json positive_or_null(double v);

}  // namespace gpuplan
