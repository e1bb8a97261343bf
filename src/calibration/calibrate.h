// Measured figures in place of datasheet ones: a calibration profile turned into a modified copy
// of a catalog GPU (the datasheet-vs-measured view of `gpuplan gpu NAME --calibration FILE` is
// report/gpu_report.cpp, from the answer's overrides).
#pragma once

#include <string>

#include "calibration/profile.h"
#include "catalog/gpu.h"

namespace gpuplan {

// A copy of `datasheet` whose dense peak FLOP/s per measured precision and whose HBM bandwidth
// are the profile's achievable figures; everything not measured keeps its datasheet value.
// Throws Error when the profile was measured on another GPU.
Gpu apply_calibration(const Gpu& datasheet, const CalibrationProfile& profile);

// The smallest buffer whose read or copy measures HBM rather than the L2: 4 × the catalog's L2
// (a streamed buffer of 4 × L2 finds almost nothing of itself left in the cache on the next
// pass), 0 when the catalog has no L2 size. The default sweep's 16 MiB read fits in an H100's
// 50 MB L2 and its 64 MiB one in a B200's or an L40S's; such points never set the HBM figure.
double hbm_min_buffer_bytes(const Gpu& gpu);

// Throws Error unless the profile was measured on `gpu` (ids compared case-insensitively),
// naming both and the command that measures this one.
void check_profile_gpu(const Gpu& gpu, const CalibrationProfile& profile);

}  // namespace gpuplan
