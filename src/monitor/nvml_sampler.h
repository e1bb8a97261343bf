// The GpuSampler over NVML, loaded at run time with dlopen: gpuplan never links NVML and never
// includes nvml.h, so it builds without the CUDA toolkit and runs on machines with no GPU.
#pragma once

#include <memory>
#include <string>

#include "core/error.h"
#include "monitor/sample.h"

namespace gpuplan {

// NVML cannot be used here: the library is missing (no NVIDIA driver), nvmlInit failed (driver
// and library versions differ, no permission) or it sees no GPU. Not a bug in the input, but the
// CLI reports it like bad input; `gpuplan monitor` documents exit code 3 for it so scripts can
// tell "no GPU here" apart from a typo (exit 2).
class NvmlUnavailable : public Error {
 public:
  static constexpr int kExitCode = 3;
  explicit NvmlUnavailable(const std::string& message) : Error(message) {}
};

inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

// Opens `library` (a soname or a path), initialises NVML and returns a sampler over every GPU it
// sees. Throws NvmlUnavailable, whose message starts "NVML not found: no NVIDIA driver on this
// machine" when the library cannot be loaded.
std::unique_ptr<GpuSampler> open_nvml_sampler(const std::string& library = kNvmlLibrary);

}  // namespace gpuplan
