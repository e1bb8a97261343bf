// What a published training run measured, read onto one scale: the FLOP-counting convention a
// source used (training-runs.csv `flops_counting`) and the step time a published rate implies,
// so that a run that published TFLOP/s, MFU, tokens/s or GPU-hours is scored like one that
// published its step time. The error is always on time: predicted / measured step time − 1,
// which for a rate R (work / time) is R_measured / R_predicted − 1 (docs/validation.md).
#pragma once

#include <cstdint>
#include <string_view>

#include "workload/model.h"

namespace gpuplan {

// How a source counted the FLOPs of one training step.
enum class FlopsCounting {
  model_causal,             // 6N + 3 × causal attention: gpuplan's own MFU (workload/params.h)
  model_full_attention,     // 6N + 3 × full s² attention (Megatron-LM, NeMo, Narayanan et al. 2021 MFU)
  hardware_full_recompute,  // + one more forward of every layer: Narayanan et al. 2021 eq. (96·B·s·l·h²·…)
  unstated,                 // the source does not say: read as model_causal, and said so
  not_applicable,           // the source published no FLOP rate ("n/a")
};

// The `flops_counting` text, read by the phrases the sources use (shared/data/README.md):
// "n/a" → not_applicable; "incl. recompute", "includes full activation recompute", "counts
// activation-recompute" → hardware_full_recompute; "non-causal" → model_full_attention;
// "causal" → model_causal; anything else (blank, "not spelled out") → unstated.
FlopsCounting parse_flops_counting(std::string_view text);
const char* flops_counting_name(FlopsCounting counting);

// Training FLOPs per token of a `seq_len` sequence as the convention counts them. With N the
// matmul weights a token meets (workload/params.h, output head included) and A the attention
// FLOPs of one forward pass: model 6N + 3A; with full recompute the layers run forward twice,
// 8(N − N_head) + 6·N_head + 4A (for GPT shapes this is Narayanan et al. 2021's
// 96·l·h²·(1 + s/6h + V/16lh) per token; the output head is not recomputed).
double train_flops_per_token_as(const ModelSpec& model, std::int64_t seq_len, FlopsCounting counting);

// The quantity a row is compared on, in the order a row's columns are preferred.
enum class MeasuredQuantity {
  step_time,             // measured_step_time_s
  tokens_per_s_per_gpu,  // measured_tokens_per_s_per_gpu
  tflops_per_gpu,        // measured_tflops_per_gpu, under the row's flops_counting
  mfu,                   // measured_mfu_pct, against the dense peak of the row's precision
  gpu_hours,             // measured_gpu_hours for measured_run_tokens tokens
};
const char* measured_quantity_name(MeasuredQuantity quantity);

// One step of a row in the units each quantity needs.
struct StepWork {
  double tokens = 0;                 // global batch × sequence length
  double flops = 0;                  // under the source's FLOP counting
  int gpus = 0;
  double peak_flops_per_s = 0;       // per GPU: the MFU denominator
  double run_tokens = 0;             // tokens the GPU-hours were spent on
};

// What a step of `step_s` shows as, in the quantity's own unit (seconds, tokens/s per GPU,
// TFLOP/s per GPU, MFU in %, GPU-hours).
double quantity_at_step_time(MeasuredQuantity quantity, const StepWork& work, double step_s);
// The inverse: the step time a measured value implies.
double step_time_at_quantity(MeasuredQuantity quantity, const StepWork& work, double value);

}  // namespace gpuplan
