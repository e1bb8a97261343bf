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

}  // namespace gpuplan
