// The fields of CollectiveCommandRequest (`gpuplan collective`, Python collective(), POST
// /api/collective) as one table (core/field_spec.h); see plan/train_fields.h.
#pragma once

#include <vector>

#include "calibration/collective_question.h"
#include "core/field_spec.h"

namespace gpuplan {

const std::vector<FieldSpec<CollectiveCommandRequest>>& collective_fields();

}  // namespace gpuplan
