// The fields of GpuRequest (`gpuplan gpu NAME [--calibration PROFILE]`, Python gpu()) as one
// table (core/field_spec.h); see catalog/lookup_fields.h for the positional `name`.
#pragma once

#include <vector>

#include "calibration/gpu_request.h"
#include "core/field_spec.h"

namespace gpuplan {

const std::vector<FieldSpec<GpuRequest>>& gpu_fields();

}  // namespace gpuplan
