#include "calibration/gpu_request.h"

#include "calibration/calibrate.h"

namespace gpuplan {

GpuAnswer answer_gpu(const Catalog& catalog, const GpuRequest& request) {
  GpuAnswer answer;
  answer.gpu = &catalog.gpu(request.name);
  if (!request.calibration.empty()) {
    answer.profile = load_calibration(request.calibration);
    answer.calibrated = apply_calibration(*answer.gpu, *answer.profile);
  }
  return answer;
}

}  // namespace gpuplan
