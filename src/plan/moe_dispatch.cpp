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

MoeNodeDispatch moe_node_dispatch(double experts, double top_k, int nodes, int ranks_per_node, std::int64_t groups,
                                  std::int64_t group_limit) {
  // The nodes a token may reach and the experts they hold: all of them, or its best
  // group_limit groups when the groups are the nodes.
  const bool node_limited = group_limit > 0 && groups == nodes && group_limit < nodes;
  const double reach = node_limited ? static_cast<double>(group_limit) : std::max(1, nodes);
  const double reach_experts = experts * reach / std::max(1, nodes);
  MoeNodeDispatch d;
  d.nodes_per_token = moe_distinct_ranks_per_token(reach_experts, top_k, reach);
  d.ranks_per_token = moe_distinct_ranks_per_token(reach_experts, top_k, reach * std::max(1, ranks_per_node));
  return d;
}

}  // namespace gpuplan
