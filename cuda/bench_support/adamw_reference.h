// The CPU reference for gpuplan-bench's optimizer step: AdamW (Loshchilov & Hutter 2019) with
// fp32 master weights, fp32 moments and a bf16 copy refreshed after the update, as Megatron's
// mixed-precision optimizer runs it (apex FusedAdam in adam_w_mode), and the check of a
// device's update against it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpuplan {

struct AdamWConfig {
  double lr = 0;
  double beta1 = 0;
  double beta2 = 0;
  double eps = 0;
  double weight_decay = 0;  // decoupled: p −= lr · weight_decay · p, on decayed tensors only
};

// The factors of step `step` (1 for the first update), computed once in double: the device
// takes them rounded to fp32, the reference as they are. 1 − β is formed here, not on the
// device, so it is the nearest float to 1 − β rather than 1 minus the nearest float to β.
struct AdamWFactors {
  double lr, beta1, one_minus_beta1, beta2, one_minus_beta2, eps, weight_decay;
  double bias_correction1;  // 1 − β1^step
  double bias_correction2;  // 1 − β2^step
};
AdamWFactors adamw_factors(const AdamWConfig& config, int step);

// One element:
//   m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²;  m̂ = m / (1−β1^t);  v̂ = v / (1−β2^t);
//   p ← p − lr·(m̂ / (√v̂ + eps) + wd·p)   (wd = 0 where not decayed)
struct AdamWElement {
  double param = 0, m = 0, v = 0;
};
AdamWElement adamw_reference(AdamWElement before, double grad, const AdamWFactors& f, bool decayed);

// An fp32 value rounded to bf16 (round to nearest, ties to even; NaN stays NaN), as
// __float2bfloat16 does, widened back to fp32.
float round_to_bf16(float value);

// The optimizer state over all parameters, flat (step_layout.h).
struct AdamWArrays {
  std::vector<float> param;  // fp32 master weights
  std::vector<float> m;
  std::vector<float> v;
};

struct AdamWCheck {
  bool correct = false;
  std::string check;
};

// Every element of a device's update (`after`, and its bf16 copy widened to fp32) against the
// reference applied to `before` and the device's own gradient, elements [0, decayed) with
// weight decay. Limits, from fp32 arithmetic (unit roundoff 2^-24) a few operations deep:
// m and v within 1e-6 of the magnitude of their two terms (β·m and (1−β)·g, which may cancel);
// the master weight within 2^-23·|p| (its own rounding) + 1e-5 · lr · (the magnitude of the
// step's terms); the bf16 copy exactly the master weight rounded to bf16. A missed bias
// correction, a doubled step or decay on a norm is off by far more.
AdamWCheck check_adamw_against_reference(const AdamWConfig& config, int step, std::size_t decayed,
                                         const std::vector<float>& grad, const AdamWArrays& before,
                                         const AdamWArrays& after, const std::vector<float>& param_bf16);

}  // namespace gpuplan
