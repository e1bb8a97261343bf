// The real device behind gpuplan-bench's BenchDevice interface (calibration/measure.h).
#pragma once

#include <memory>

#include "calibration/measure.h"

namespace gpuplan::cuda {

// 0 when there is no driver, no GPU, or the runtime cannot start.
int cuda_device_count();
std::unique_ptr<BenchDevice> open_cuda_device(int ordinal);

}  // namespace gpuplan::cuda
