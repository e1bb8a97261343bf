#include "infer/feature_point.h"

namespace gpuplan {

ServingPoint serving_point_at(const InferContext& ctx, const InferPlan& plan, double max_running) {
  switch (plan.mode) {
    case InferMode::batch: return static_batch(ctx, plan, plan.load);
    case InferMode::concurrency: return closed_loop(ctx, plan, plan.load, max_running);
    case InferMode::max_throughput: return max_throughput(ctx, plan, max_running);
  }
  return static_batch(ctx, plan, plan.load);
}

double request_life_s(const ServingPoint& p, const InferPlan& plan) {
  return p.running * static_cast<double>(plan.output_len) / p.output_tokens_per_s;
}

}  // namespace gpuplan
