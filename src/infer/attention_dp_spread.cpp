#include "infer/attention_dp_spread.h"

#include <algorithm>
#include <cmath>

namespace gpuplan {

double expected_max_poisson(double mean, int n) {
  if (!(mean > 0)) return 0;
  if (n <= 1) return mean;
  // Σ_{k ≥ 0} P(max > k) = Σ (1 − F(k)^n). Below k0 = mean − 20·sqrt(mean) the CDF is 0 to
  // double precision, so those k0 terms are 1 each; from k0 on, the PMF by its recurrence
  // (started in log space: exp(−mean) underflows for a large mean), until the terms are below
  // 1e-12 of the sum past the mean.
  const int k0 = static_cast<int>(std::max(0.0, std::floor(mean - 20 * std::sqrt(mean))));
  double pmf = std::exp(-mean + k0 * std::log(mean) - std::lgamma(k0 + 1.0));  // P(X = k0)
  double cdf = pmf;
  double sum = k0;
  for (int k = k0; k < k0 + 100000; ++k) {
    const double term = 1 - std::pow(cdf, n);
    sum += term;
    if (term < 1e-12 * std::max(1.0, sum) && k > mean) break;
    pmf *= mean / (k + 1);
    cdf = std::min(1.0, cdf + pmf);
  }
  return sum;
}

double busiest_rank_spread_prompts(double prompts, int attention_dp) {
  if (!(prompts > 0)) return 0;
  if (attention_dp <= 1) return prompts;
  return expected_max_poisson(prompts / attention_dp, attention_dp);
}

}  // namespace gpuplan
