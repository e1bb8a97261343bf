#include "validate/measured_quantity.h"

#include <string>

#include "core/error.h"
#include "core/strings.h"
#include "core/units.h"
#include "workload/params.h"

namespace gpuplan {

FlopsCounting parse_flops_counting(std::string_view text) {
  const std::string t = to_lower(text);
  auto has = [&](std::string_view phrase) { return t.find(phrase) != std::string::npos; };
  if (has("n/a")) return FlopsCounting::not_applicable;
  // Checked before "causal": these texts also say which attention they count (non-causal).
  // "HFU adds recomputed FLOPs" (a note beside an MFU convention) is deliberately not a match.
  if (has("incl. recompute") || has("includes full activation recompute") || has("counts activation-recompute")) {
    return FlopsCounting::hardware_full_recompute;
  }
  if (has("non-causal")) return FlopsCounting::model_full_attention;
  if (has("causal")) return FlopsCounting::model_causal;
  return FlopsCounting::unstated;
}

const char* flops_counting_name(FlopsCounting counting) {
  switch (counting) {
    case FlopsCounting::model_causal: return "model FLOPs, causal attention";
    case FlopsCounting::model_full_attention: return "model FLOPs, full attention";
    case FlopsCounting::hardware_full_recompute: return "hardware FLOPs with full recompute";
    case FlopsCounting::unstated: return "not stated (read as model FLOPs, causal attention)";
    case FlopsCounting::not_applicable: return "n/a";
  }
  return "?";
}

// N and A as in the header: count_params(model).matmul_active (output head included, input
// embedding not: a lookup) and attention_flops_per_token (QK^T and PV of the forward pass).
double train_flops_per_token_as(const ModelSpec& model, std::int64_t seq_len, FlopsCounting counting) {
  const double matmul = count_params(model).matmul_active;
  const double head = static_cast<double>(model.vocab) * static_cast<double>(model.hidden);
  switch (counting) {
    case FlopsCounting::model_causal:
    case FlopsCounting::unstated:
      return train_flops_per_token(model, matmul, seq_len);
    case FlopsCounting::model_full_attention:
      return 6 * matmul + 3 * attention_flops_per_token(model, seq_len, false);
    case FlopsCounting::hardware_full_recompute:
      return 8 * (matmul - head) + 6 * head + 4 * attention_flops_per_token(model, seq_len, false);
    case FlopsCounting::not_applicable:
      break;
  }
  GP_ASSERT(false, "a row without a FLOP convention has no FLOP count (callers check)");
  return 0;
}

const char* measured_quantity_name(MeasuredQuantity quantity) {
  switch (quantity) {
    case MeasuredQuantity::step_time: return "step time";
    case MeasuredQuantity::tokens_per_s_per_gpu: return "tokens/s/GPU";
    case MeasuredQuantity::tflops_per_gpu: return "TFLOP/s/GPU";
    case MeasuredQuantity::mfu: return "MFU";
    case MeasuredQuantity::gpu_hours: return "GPU-hours";
  }
  return "?";
}

// Each rate is the step's work over (step time × GPUs); GPU-hours are the GPUs' time over
// the run's steps (run_tokens / tokens per step).
double quantity_at_step_time(MeasuredQuantity quantity, const StepWork& w, double step_s) {
  GP_ASSERT(step_s > 0 && w.gpus > 0, "step time and GPUs must be positive");
  const double gpu_s = step_s * w.gpus;
  switch (quantity) {
    case MeasuredQuantity::step_time: return step_s;
    case MeasuredQuantity::tokens_per_s_per_gpu: return w.tokens / gpu_s;
    case MeasuredQuantity::tflops_per_gpu: return w.flops / gpu_s / kTera;
    case MeasuredQuantity::mfu: return 100 * w.flops / (gpu_s * w.peak_flops_per_s);
    case MeasuredQuantity::gpu_hours: return gpu_s * (w.run_tokens / w.tokens) / 3600;
  }
  return 0;
}

double step_time_at_quantity(MeasuredQuantity quantity, const StepWork& w, double value) {
  GP_ASSERT(value > 0 && w.gpus > 0, "a measured value and GPUs must be positive");
  const double gpus = w.gpus;
  switch (quantity) {
    case MeasuredQuantity::step_time: return value;
    case MeasuredQuantity::tokens_per_s_per_gpu: return w.tokens / (value * gpus);
    case MeasuredQuantity::tflops_per_gpu: return w.flops / (value * kTera * gpus);
    case MeasuredQuantity::mfu: return w.flops / (value / 100 * w.peak_flops_per_s * gpus);
    case MeasuredQuantity::gpu_hours: return value * 3600 / gpus / (w.run_tokens / w.tokens);
  }
  return 0;
}

}  // namespace gpuplan
