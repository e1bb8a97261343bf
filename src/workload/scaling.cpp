#include "workload/scaling.h"

#include "core/strings.h"

namespace gpuplan {

std::string_view scaling_recipe_name(ScalingRecipe r) {
  switch (r) {
    case ScalingRecipe::delayed: return "delayed";
    case ScalingRecipe::tensorwise: return "tensorwise";
    case ScalingRecipe::blockwise: return "blockwise";
    case ScalingRecipe::mxfp8: return "mxfp8";
    case ScalingRecipe::nvfp4: return "nvfp4";
  }
  return "?";
}

std::optional<ScalingRecipe> parse_scaling_recipe(std::string_view name) {
  const std::string n = to_lower(name);
  if (n == "delayed") return ScalingRecipe::delayed;
  if (n == "tensorwise" || n == "current") return ScalingRecipe::tensorwise;
  if (n == "blockwise") return ScalingRecipe::blockwise;
  if (n == "mxfp8" || n == "mx") return ScalingRecipe::mxfp8;
  if (n == "nvfp4") return ScalingRecipe::nvfp4;
  return std::nullopt;
}

ScalingRecipe default_scaling_recipe(Precision gemm) {
  return gemm == Precision::fp4 ? ScalingRecipe::nvfp4 : ScalingRecipe::delayed;
}

bool scaling_recipe_fits(ScalingRecipe r, Precision gemm) {
  if (gemm == Precision::fp4) return r == ScalingRecipe::nvfp4;
  if (gemm == Precision::fp8) return r != ScalingRecipe::nvfp4;
  return r == ScalingRecipe::delayed;
}

bool needs_block_scaled_mma(ScalingRecipe r) { return r == ScalingRecipe::mxfp8 || r == ScalingRecipe::nvfp4; }

double scaled_element_bytes(Precision gemm, ScalingRecipe r) {
  const double element = precision_bytes(gemm);
  switch (r) {
    case ScalingRecipe::delayed:
    case ScalingRecipe::tensorwise: return element;
    case ScalingRecipe::blockwise: return element + 4.0 / 128;  // fp32 scale per 1×128 tile
    case ScalingRecipe::mxfp8: return element + 1.0 / 32;      // E8M0 scale per 32 elements
    case ScalingRecipe::nvfp4: return element + 1.0 / 16;      // E4M3 scale per 16 elements
  }
  return element;
}

int quantised_copies(ScalingRecipe r) {
  return r == ScalingRecipe::blockwise || r == ScalingRecipe::mxfp8 || r == ScalingRecipe::nvfp4 ? 2 : 1;
}

int quantised_weight_copies(ScalingRecipe r) {
  return r == ScalingRecipe::mxfp8 || r == ScalingRecipe::nvfp4 ? 2 : 1;
}

}  // namespace gpuplan
