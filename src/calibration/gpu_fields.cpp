#include "calibration/gpu_fields.h"

namespace gpuplan {

const std::vector<FieldSpec<GpuRequest>>& gpu_fields() {
  using R = GpuRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"name", GP_FIELD(R, name), "", "", "GPU id or alias (see 'gpuplan gpus')", kRequired},
      {"calibration", GP_FIELD(R, calibration), "", "", "Profile from gpuplan-bench: show datasheet vs measured",
       kTakesPath},
  };
  return fields;
}

}  // namespace gpuplan
