// The fields of SearchRequest (`gpuplan search`, Python search(), POST /api/search) as one
// table (core/field_spec.h); see plan/train_fields.h.
#pragma once

#include <vector>

#include "core/field_spec.h"
#include "search/search_request.h"

namespace gpuplan {

const std::vector<FieldSpec<SearchRequest>>& search_fields();

}  // namespace gpuplan
