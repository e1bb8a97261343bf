// The fields of CostRequest, TcoRequest and EnergyRequest (`gpuplan cost | tco | energy`,
// Python cost() / tco() / energy(), POST /api/cost) as tables (core/field_spec.h), from which
// the CLI adds its flags, Python reads its keywords and the web API builds its allowlist; see
// plan/train_fields.h.
#pragma once

#include <vector>

#include "core/field_spec.h"
#include "econ/cost_request.h"
#include "econ/energy_request.h"
#include "econ/tco_request.h"

namespace gpuplan {

const std::vector<FieldSpec<CostRequest>>& cost_fields();
const std::vector<FieldSpec<TcoRequest>>& tco_fields();
const std::vector<FieldSpec<EnergyRequest>>& energy_fields();

}  // namespace gpuplan
