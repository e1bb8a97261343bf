// The fields of TrainRequest (`gpuplan train`, `gpuplan memory`, Python train()/memory(),
// POST /api/train) as one table (core/field_spec.h): the CLI flags, the Python keywords, the web
// API's allowlist and docs/cli.md all come from or are checked against it.
#pragma once

#include <string_view>
#include <vector>

#include "core/field_spec.h"
#include "plan/train_request.h"

namespace gpuplan {

const std::vector<FieldSpec<TrainRequest>>& train_fields();

// --framework and --precision: the same words for train, memory and search.
inline constexpr std::string_view kFrameworkHelp =
    "Training framework, which sets the host time per kernel and the attention and fusion kernels: "
    "megatron-core (default; also nemo, megatron-bridge), megatron-lm (2021-22), pytorch-fsdp (also "
    "torchtitan, llm-foundry), pytorch (plain PyTorch / DDP with transformers: fp32 weights under autocast, "
    "fused AdamW; also ddp, transformers), deepspeed (also megatron-deepspeed); an unknown name lists every "
    "valid one";
inline constexpr std::string_view kPrecisionHelp =
    "Precision of the linear layers: bf16, fp16, fp8, fp4 (NVFP4), tf32, fp32";

// --fp8-recipe and --fp8-activation-cache: the same words for train, memory and search.
inline constexpr std::string_view kFp8RecipeHelp =
    "Scaling of fp8 linear layers: delayed (per-tensor, amax history; default), tensorwise (per-tensor, "
    "current amax: one more read per cast), blockwise (1x128 / 128x128 fp32 scales, DeepSeek-V3), mxfp8 "
    "(32-element E8M0 scales; Blackwell-class GPUs). --precision fp4 is always NVFP4";
inline constexpr std::string_view kFp8ParamsHelp =
    "fp8 primary weights: the fp8 GEMMs' weights kept only in fp8, no 16-bit copy (Megatron-Core "
    "--fp8-param-gather; Megatron-Bridge's FP8 current-scaling and MXFP8 recipes); per-tensor recipes "
    "all-gather them in fp8";
inline constexpr std::string_view kFp8ActivationCacheHelp =
    "DeepSeek-V3's low-precision activation cache: experts' SwiGLU inputs kept in fp8 (output recomputed), "
    "attention output in 12 bits";

}  // namespace gpuplan
