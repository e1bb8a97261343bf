// How the low-precision GEMM inputs of a training recipe carry their scales, and what that
// costs in bytes and quantisation passes. The format (fp8, fp4) is the plan's precision; the
// recipe says how values map onto it:
//   delayed    one fp32 scale per tensor from an amax history (Transformer Engine's default;
//              Micikevicius et al. 2022, arXiv:2209.05433)
//   tensorwise one fp32 scale per tensor from the current tensor's amax (Megatron-Core
//              --fp8-recipe tensorwise, "current scaling"; the CS of NVIDIA's benchmark names).
//              Its producer (norm, activation) writes 16-bit and the amax, then a cast reads it:
//              the separate cast every recipe is charged here (delayed scaling could fuse the
//              cast into a norm, which the model does not credit)
//   blockwise  fp32 scales per 1×128 activation tile and 128×128 weight block (DeepSeek-V3
//              report, arXiv:2412.19437 sec. 3.3.2; Megatron-Core --fp8-recipe blockwise)
//   mxfp8      one E8M0 scale per 32 elements along the reduction dimension (OCP Microscaling
//              spec v1.0; Megatron-Core --fp8-recipe mxfp8); needs block-scaled tensor cores
//   nvfp4      fp4 E2M1 values, one E4M3 scale per 16 elements and an fp32 scale per tensor
//              (NVIDIA, "Pretraining LLMs with NVFP4", arXiv:2509.25149); the fp4 precision's
//              only recipe
// Block scales run along the reduction dimension, so the transposed copy a weight-gradient
// GEMM reads must be quantised on its own (a second copy), where a per-tensor scale serves both.
#pragma once

#include <optional>
#include <string_view>

#include "core/precision.h"

namespace gpuplan {

enum class ScalingRecipe { delayed, tensorwise, blockwise, mxfp8, nvfp4 };

std::string_view scaling_recipe_name(ScalingRecipe r);
std::optional<ScalingRecipe> parse_scaling_recipe(std::string_view name);

// The recipe a precision gets when none is named: delayed scaling for fp8 (Transformer
// Engine's default), nvfp4 for fp4; irrelevant (delayed) for 16- and 32-bit plans.
ScalingRecipe default_scaling_recipe(Precision gemm);

// The tests and counts below are inline: the training evaluator asks them for every plan and
// op, mostly of constants.

// Whether `r` applies to linear layers in `gemm` (fp8 recipes for fp8, nvfp4 for fp4).
constexpr bool scaling_recipe_fits(ScalingRecipe r, Precision gemm) {
  if (gemm == Precision::fp4) return r == ScalingRecipe::nvfp4;
  if (gemm == Precision::fp8) return r != ScalingRecipe::nvfp4;
  return r == ScalingRecipe::delayed;
}

// Whether the recipe needs tensor cores that read block scales (Blackwell's 5th-generation
// tensor cores, CDNA 4): mxfp8 and nvfp4.
constexpr bool needs_block_scaled_mma(ScalingRecipe r) {
  return r == ScalingRecipe::mxfp8 || r == ScalingRecipe::nvfp4;
}

// Bytes per element of a quantised tensor, its scales included: the element (precision_bytes)
// plus the scale bytes over the block (1×128 fp32 tiles: 4/128; 32-element E8M0: 1/32;
// 16-element E4M3: 1/16). Per-tensor scales add nothing per element.
constexpr double scaled_element_bytes(Precision gemm, ScalingRecipe r) {
  const double element = precision_bytes(gemm);
  switch (r) {
    case ScalingRecipe::delayed:
    case ScalingRecipe::tensorwise:
      return element;
    case ScalingRecipe::blockwise:
      return element + 4.0 / 128;  // fp32 scale per 1×128 tile
    case ScalingRecipe::mxfp8:
      return element + 1.0 / 32;  // E8M0 scale per 32 elements
    case ScalingRecipe::nvfp4:
      return element + 1.0 / 16;  // E4M3 scale per 16 elements
  }
  return element;
}

// Copies of each quantised GEMM input the cast writes: 2 where the scale blocks follow the
// reduction dimension (blockwise, mxfp8, nvfp4), 1 for per-tensor scaling.
constexpr int quantised_copies(ScalingRecipe r) {
  return r == ScalingRecipe::blockwise || r == ScalingRecipe::mxfp8 || r == ScalingRecipe::nvfp4 ? 2 : 1;
}

// Quantised copies of each weight: 2 for 1-D block scales (mxfp8; nvfp4 as Transformer Engine
// stores it), 1 for per-tensor scales and for blockwise's 128×128 blocks, which serve the
// transpose too.
constexpr int quantised_weight_copies(ScalingRecipe r) {
  return r == ScalingRecipe::mxfp8 || r == ScalingRecipe::nvfp4 ? 2 : 1;
}

}  // namespace gpuplan
