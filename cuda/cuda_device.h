// The real device behind gpuplan-bench's BenchDevice interface (calibration/measure.h).
#pragma once

#include <memory>
#include <string>

#include "bench_support/measure.h"

namespace gpuplan::cuda {

class Collectives;

// 0 when there is no driver, no GPU, or the runtime cannot start.
int cuda_device_count();
// `collectives` may be null, `collective_note` then says why (no NCCL build, one GPU).
std::unique_ptr<BenchDevice> open_cuda_device(int ordinal, std::unique_ptr<Collectives> collectives,
                                              std::string collective_note);

}  // namespace gpuplan::cuda
