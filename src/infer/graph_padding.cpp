#include "infer/graph_padding.h"

#include <algorithm>

namespace gpuplan {

double graph_padded_batch(const std::vector<double>& sizes, double decodes) {
  // A count a rounding above a captured size is that size (64 decodes as 64.0000001).
  const auto it = std::lower_bound(sizes.begin(), sizes.end(), decodes * (1 - 1e-9));
  return it == sizes.end() ? decodes : std::max(decodes, *it);
}

StepCost with_graph_padding(const InferContext& ctx, const InferPlan& plan, StepCost mean, double decodes,
                            double context, double light_share) {
  const std::vector<double>& sizes = ctx.engine->cuda_graph_batch_sizes;
  if (sizes.empty() || decodes <= 0 || light_share <= 0) return mean;
  // Attention DP: each rank replays the graph of its own sequences' count (the ranks pad to the
  // same size; with the decodes spread evenly that is the per-rank count's).
  const double dp = std::max(1, plan.attention_dp);
  const double padded = graph_padded_batch(sizes, decodes / dp) * dp;
  if (padded <= decodes + 1e-9) return mean;
  // The dummy rows add tokens, not cached keys: the KV read stays decodes × context.
  const StepCost light = step_cost(ctx, plan, {decodes, context, 0, 0});
  const StepCost pad = step_cost(ctx, plan, {padded, context * decodes / padded, 0, 0});
  mean.graph_padded_decodes = padded;
  mean.graph_padding_s = std::min(1.0, light_share) * std::max(0.0, pad.total_s - light.total_s);
  mean.total_s += mean.graph_padding_s;
  return mean;
}

}  // namespace gpuplan
