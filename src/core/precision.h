// Numeric formats the catalog keeps peak throughput for, and their sizes in bytes.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace gpuplan {

enum class Precision { fp64, fp64_tensor, fp32, tf32, bf16, fp16, fp8, fp6, fp4, int8, int4 };
inline constexpr std::size_t kPrecisionCount = 11;

inline constexpr std::array<Precision, kPrecisionCount> kAllPrecisions = {
    Precision::fp64, Precision::fp64_tensor, Precision::fp32, Precision::tf32,
    Precision::bf16, Precision::fp16,        Precision::fp8,  Precision::fp6,
    Precision::fp4,  Precision::int8,        Precision::int4};

constexpr std::size_t index_of(Precision p) { return static_cast<std::size_t>(p); }

// Name as used in data files, flags and JSON keys: "bf16", "fp64_tensor", ...
std::string_view precision_name(Precision p);
std::optional<Precision> parse_precision(std::string_view name);

// Storage size of one element (fp6 = 0.75, fp4/int4 = 0.5; tf32 is stored as fp32). Inline:
// the training evaluator asks it a dozen times per plan, often of a constant.
constexpr double precision_bytes(Precision p) {
  switch (p) {
    case Precision::fp64:
    case Precision::fp64_tensor:
      return 8;
    case Precision::fp32:
    case Precision::tf32:
      return 4;
    case Precision::bf16:
    case Precision::fp16:
      return 2;
    case Precision::fp8:
    case Precision::int8:
      return 1;
    case Precision::fp6:
      return 0.75;
    case Precision::fp4:
    case Precision::int4:
      return 0.5;
  }
  return 0;
}

// One value per precision; 0 means "not supported / not published".
using PerPrecision = std::array<double, kPrecisionCount>;

}  // namespace gpuplan
