#include "core/precision.h"

#include "core/strings.h"

namespace gpuplan {

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::fp64: return "fp64";
    case Precision::fp64_tensor: return "fp64_tensor";
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp8: return "fp8";
    case Precision::fp6: return "fp6";
    case Precision::fp4: return "fp4";
    case Precision::int8: return "int8";
    case Precision::int4: return "int4";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view name) {
  const std::string lower = to_lower(name);
  for (Precision p : kAllPrecisions) {
    if (precision_name(p) == lower) return p;
  }
  return std::nullopt;
}

}  // namespace gpuplan
