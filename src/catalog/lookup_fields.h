// The fields of the catalog questions' requests (`gpuplan gpus`, `system NAME`, `clouds`;
// Python gpus(), system(), clouds()) as tables (core/field_spec.h), from which the CLI adds its
// flags and Python reads its keywords; see plan/train_fields.h. A table's `name` field is the
// CLI's positional argument (`gpuplan system NAME`) and Python's keyword.
#pragma once

#include <vector>

#include "catalog/lookup_request.h"
#include "core/field_spec.h"

namespace gpuplan {

const std::vector<FieldSpec<GpusRequest>>& gpus_fields();
const std::vector<FieldSpec<SystemRequest>>& system_fields();
const std::vector<FieldSpec<CloudsRequest>>& clouds_fields();

}  // namespace gpuplan
