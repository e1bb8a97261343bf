#include "plan/moe_dispatch.h"

#include <algorithm>

namespace gpuplan {

double moe_distinct_ranks_per_token(double experts, double top_k, double ep) {
  if (ep <= 1 || experts <= 0 || top_k <= 0) return std::min(1.0, std::max(0.0, top_k));
  // P(a given rank holds none of the k experts) = C(E − L, k) / C(E, k) = Π_{i<k} (E − L − i)/(E − i),
  // L = E / ep the rank's local experts; 0 once the other ranks hold fewer than k experts.
  const double local = experts / ep;
  double none = 1;
  for (int i = 0; i < static_cast<int>(top_k); ++i) {
    const double left = experts - local - i;
    if (left <= 0) {
      none = 0;
      break;
    }
    none *= left / (experts - i);
  }
  return ep * (1 - none);
}

double moe_dispatch_copies_per_token(double experts, double top_k, double ep, MoeDispatcher dispatcher) {
  return dispatcher == MoeDispatcher::flex ? moe_distinct_ranks_per_token(experts, top_k, ep) : top_k;
}

}  // namespace gpuplan
