#include "calibration/gpu_request.h"

#include "calibration/calibrate.h"
#include "core/field_error.h"

namespace gpuplan {

GpuAnswer answer_gpu(const Catalog& catalog, const GpuRequest& request) {
  if (request.name.empty()) throw FieldError("name", "name is required: a GPU id or alias (see 'gpuplan gpus')");
  GpuAnswer answer;
  answer.gpu = &catalog.gpu(request.name);
  answer.derived = derive_gpu(*answer.gpu);
  if (!request.calibration.empty()) {
    answer.profile = load_calibration(request.calibration);
    answer.calibrated = apply_calibration(*answer.gpu, *answer.profile);
    answer.calibrated_derived = derive_gpu(*answer.calibrated);
    const Gpu& datasheet = *answer.gpu;
    const Gpu& measured = *answer.calibrated;
    for (Precision p : kAllPrecisions) {
      if (answer.profile->peak_flops_per_s(p)) answer.overrides.push_back({p, datasheet.dense(p), measured.dense(p)});
    }
    if (answer.profile->hbm_bw_bytes_per_s(hbm_min_buffer_bytes(datasheet))) {
      answer.overrides.push_back({std::nullopt, datasheet.memory_bw_bytes_per_s, measured.memory_bw_bytes_per_s});
    }
  }
  return answer;
}

}  // namespace gpuplan
