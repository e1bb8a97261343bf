#include "bench_support/adamw_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {

AdamWFactors adamw_factors(const AdamWConfig& c, int step) {
  GP_ASSERT(step >= 1, "AdamW steps count from 1");
  return {c.lr,
          c.beta1,
          1 - c.beta1,
          c.beta2,
          1 - c.beta2,
          c.eps,
          c.weight_decay,
          1 - std::pow(c.beta1, step),
          1 - std::pow(c.beta2, step)};
}

AdamWElement adamw_reference(AdamWElement e, double grad, const AdamWFactors& f, bool decayed) {
  e.m = f.beta1 * e.m + f.one_minus_beta1 * grad;
  e.v = f.beta2 * e.v + f.one_minus_beta2 * grad * grad;
  const double m_hat = e.m / f.bias_correction1;
  const double v_hat = e.v / f.bias_correction2;
  e.param -= f.lr * (m_hat / (std::sqrt(v_hat) + f.eps) + (decayed ? f.weight_decay : 0.0) * e.param);
  return e;
}

float round_to_bf16(float value) {
  if (std::isnan(value)) return value;
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  bits += 0x7FFFu + ((bits >> 16) & 1u);  // ties to even: a halfway case rounds up only from an odd bf16
  bits &= 0xFFFF0000u;
  float rounded = 0;
  std::memcpy(&rounded, &bits, sizeof(rounded));
  return rounded;
}

AdamWCheck check_adamw_against_reference(const AdamWConfig& config, int step, std::size_t decayed,
                                         const std::vector<float>& grad, const AdamWArrays& before,
                                         const AdamWArrays& after, const std::vector<float>& param_bf16) {
  constexpr double kMomentLimit = 1e-6;
  constexpr double kStepLimit = 1e-5;
  const double kParamRounding = std::ldexp(1.0, -23);
  const std::size_t n = grad.size();
  GP_ASSERT(before.param.size() == n && before.m.size() == n && before.v.size() == n && after.param.size() == n &&
                after.m.size() == n && after.v.size() == n && param_bf16.size() == n,
            "AdamW arrays must all have the gradient's size");
  const AdamWFactors f = adamw_factors(config, step);
  // Each error as a share of its limit: ≤ 1 passes. NaN compares false, so `!(x <= 1)` catches it.
  double worst_m = 0, worst_v = 0, worst_p = 0;
  std::size_t bad = 0, bf16_mismatches = 0;
  auto share = [&](double error, double limit, double& worst) {
    const double s = error == 0 ? 0 : limit > 0 ? error / limit : INFINITY;
    if (!(s <= 1)) ++bad;
    worst = std::isnan(s) || std::isnan(worst) ? NAN : std::max(worst, s);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const double g = grad[i];
    const AdamWElement ref = adamw_reference({before.param[i], before.m[i], before.v[i]}, g, f, i < decayed);
    const double m_terms = f.beta1 * std::abs(before.m[i]) + f.one_minus_beta1 * std::abs(g);
    const double v_terms = f.beta2 * before.v[i] + f.one_minus_beta2 * g * g;
    const double step_terms = m_terms / f.bias_correction1 / (std::sqrt(ref.v / f.bias_correction2) + f.eps) +
                              (i < decayed ? f.weight_decay : 0.0) * std::abs(before.param[i]);
    share(std::abs(after.m[i] - ref.m), kMomentLimit * m_terms, worst_m);
    share(std::abs(after.v[i] - ref.v), kMomentLimit * v_terms, worst_v);
    share(std::abs(after.param[i] - ref.param), kParamRounding * std::abs(ref.param) + kStepLimit * f.lr * step_terms,
          worst_p);
    if (!(param_bf16[i] == round_to_bf16(after.param[i]))) ++bf16_mismatches;
  }
  AdamWCheck c;
  c.correct = bad == 0 && bf16_mismatches == 0 && n > 0;
  c.check = fmt::format(
      "AdamW step {} over {} parameters ({} decayed): worst error of m {:.2g}, v {:.2g}, master weights {:.2g} of "
      "their limits; {} bf16 copies not the rounded master weight",
      step, n, decayed, worst_m, worst_v, worst_p, bf16_mismatches);
  return c;
}

}  // namespace gpuplan
