// The fields of RooflinesRequest (`gpuplan rooflines`, Python rooflines()) as one table
// (core/field_spec.h); see plan/train_fields.h.
#pragma once

#include <vector>

#include "core/field_spec.h"
#include "cost/rooflines_request.h"

namespace gpuplan {

const std::vector<FieldSpec<RooflinesRequest>>& rooflines_fields();

}  // namespace gpuplan
