// The fields of InferRequest and InferSearchRequest (`gpuplan infer`, `gpuplan infer-search`,
// Python infer()/infer_search(), POST /api/infer, /api/infer-search) as tables
// (core/field_spec.h); see plan/train_fields.h. The fields of InferCommon come first in both.
#pragma once

#include <vector>

#include "core/field_spec.h"
#include "infer/infer_request.h"

namespace gpuplan {

const std::vector<FieldSpec<InferRequest>>& infer_fields();
const std::vector<FieldSpec<InferSearchRequest>>& infer_search_fields();

}  // namespace gpuplan
