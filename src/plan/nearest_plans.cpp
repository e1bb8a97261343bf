#include "plan/nearest_plans.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpuplan {
namespace {

void consider(const TrainContext& ctx, const Plan& plan, std::string change, std::vector<NearbyPlan>& out) {
  if (plan.tp < 1 || plan.pp < 1 || plan.dp < 1 || plan.micro_batch < 1) return;
  const Estimate e = evaluate(ctx, plan);
  if (!e.feasible()) return;
  out.push_back(NearbyPlan{plan, std::move(change), e.step_time_s, e.memory.total_bytes});
}

}  // namespace

std::vector<NearbyPlan> nearest_feasible_plans(const TrainContext& ctx, const Plan& given, int max_plans) {
  std::vector<NearbyPlan> out;
  if (evaluate(ctx, given).feasible()) return out;
  // Every neighbour trains the same sequences per step (a global batch of 0 means dp × mb,
  // which would shrink with dp).
  Plan plan = given;
  plan.global_batch = given.global_batch_seqs();
  // Recomputation trades FLOPs for activation memory.
  for (const Recompute r : {Recompute::selective, Recompute::full}) {
    if (static_cast<int>(r) <= static_cast<int>(plan.recompute)) continue;
    Plan p = plan;
    p.recompute = r;
    consider(ctx, p, fmt::format("recompute {}", recompute_name(r)), out);
  }
  // ZeRO shards optimizer states (1), gradients (2) and weights (3) over data parallelism.
  for (int zero = plan.zero + 1; zero <= 3 && plan.dp > 1; ++zero) {
    Plan p = plan;
    p.zero = zero;
    consider(ctx, p, fmt::format("zero {}", zero), out);
  }
  // More model parallelism on the same GPUs: tp or pp ×2 / ×4, dp divided to keep the count.
  for (const int f : {2, 4}) {
    if (plan.dp % f != 0) continue;
    Plan t = plan;
    t.tp *= f;
    t.dp /= f;
    t.sp = t.tp > 1;
    consider(ctx, t, fmt::format("tp {} (dp {})", t.tp, t.dp), out);
    Plan q = plan;
    q.pp *= f;
    q.dp /= f;
    consider(ctx, q, fmt::format("pp {} (dp {})", q.pp, q.dp), out);
  }
  // A smaller micro-batch keeps fewer activations (the global batch kept, more micro-batches).
  for (int mb = plan.micro_batch / 2; mb >= 1; mb /= 2) {
    Plan p = plan;
    p.micro_batch = mb;
    consider(ctx, p, fmt::format("micro-batch {}", mb), out);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const NearbyPlan& a, const NearbyPlan& b) { return a.step_time_s < b.step_time_s; });
  if (static_cast<int>(out.size()) > max_plans) out.resize(static_cast<std::size_t>(max_plans));
  return out;
}

}  // namespace gpuplan
