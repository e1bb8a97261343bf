// PLACEHOLDER during the founding session: replaced by the real parser before landing.
#include "catalog/parsers.h"
#include "core/error.h"

namespace gpuplan {
ModelSpec parse_model(Fields& top) { top.fail("kind", "models not parsed yet"); }
}  // namespace gpuplan
