#include "infer/search_sim.h"

#include <algorithm>
#include <cmath>

namespace gpuplan {

SimWorkload search_sim_workload(const InferPlan& plan) {
  SimWorkload w;
  w.arrivals = SimArrivals::closed_loop;
  w.clients = std::max(1, static_cast<int>(plan.load + 0.5));
  w.requests = 0;  // sim_request_count: 10 per client
  w.input_len = plan.input_len;
  w.output_len = plan.output_len;
  return w;
}

SimAnswer simulate_search_candidate(const InferContext& ctx, const InferPlan& plan, const InferEstimate& e,
                                    double percentile, SimStepMemo* memo) {
  SimAnswer a;
  InferPlan one = plan;
  one.replicas = 1;
  a.workload = search_sim_workload(one);
  a.requests_sent = sim_request_count(a.workload);
  a.scheduler = sim_scheduler_of(ctx, one, e.memory);
  SimSlo slo;
  slo.percentile = percentile;
  a.result = simulate_serving(ctx, one, a.scheduler, a.workload, slo, memo);
  return a;
}

double search_ttft_lower_bound_s(const SimScheduler& sched, SimStepMemo& memo, const SimWorkload& w,
                                 double percentile) {
  const double n = sim_request_count(w);
  const int clients = std::min(w.clients, static_cast<int>(n));
  // numpy's percentile interpolates between the order statistics at floor(h) and above, h =
  // (n − 1) p / 100; it is at least the floor(h)-th smallest value (0-based), which is at least
  // L(j) when the n − floor(h) largest values include C − j + 1 first-wave requests at >= L(j).
  const double h = std::floor((n - 1) * percentile / 100);
  const double j = clients + 1 - (n - h);
  if (j < 1) return 0;
  const auto in = static_cast<double>(w.input_len);
  // The fullest prompt step: the token budget when prompts are chunked, else one whole prompt
  // (or as many whole prompts as the budget holds).
  const double tokens = sched.chunked_prefill ? sched.token_budget
                                              : std::max(in, std::floor(sched.token_budget / in) * in);
  const double per_token_s = memo.step_s(0, 0, tokens, in) / tokens;
  return sched.request_overhead_s + j * in * per_token_s;
}

bool sim_meets_targets(const SimResult& r, double ttft_s, double tpot_s) {
  if (r.requests <= 0) return false;
  if (ttft_s > 0 && !(r.ttft_at_percentile_s <= ttft_s)) return false;
  if (tpot_s > 0 && !(r.tpot_at_percentile_s <= tpot_s)) return false;
  return true;
}

}  // namespace gpuplan
