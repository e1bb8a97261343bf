#include "infer/sim_slo.h"

#include <cmath>

#include <fmt/format.h>

namespace gpuplan {

SimRateAnswer max_rate_within_slo(const InferContext& ctx, const InferPlan& plan, const SimScheduler& sched,
                                  const SimWorkload& workload, const SimRateQuestion& q) {
  SimRateAnswer a;
  SimStepMemo memo(ctx, plan);  // the same plan at every rate: step costs carry over
  SimWorkload w = workload;
  w.requests = q.requests;
  w.seed = q.seed;
  SimSlo slo{q.ttft_s, q.tpot_s, q.percentile};
  // The bracket's top: the rate the engine completes requests at when all are sent at once.
  w.arrivals = SimArrivals::offline;
  const SimResult offline = simulate_serving(ctx, plan, sched, w, slo, &memo);
  ++a.runs;
  a.max_rate_per_s = offline.requests_per_s;
  if (!(a.max_rate_per_s > 0)) {
    a.reason = "the simulation completed no request (the KV pool holds none)";
    return a;
  }
  w.arrivals = SimArrivals::poisson;
  SimResult at;
  const auto meets = [&](double rate) {
    w.rate_per_s = rate;
    at = simulate_serving(ctx, plan, sched, w, slo, &memo);
    ++a.runs;
    return (q.ttft_s <= 0 || at.ttft_at_percentile_s <= q.ttft_s) && (q.tpot_s <= 0 || at.tpot_at_percentile_s <= q.tpot_s);
  };
  // Latency rises with the rate; bisect between a rate that meets the limits and one that does
  // not, on a log scale, to 1%.
  double lo = a.max_rate_per_s * 1e-3;
  double hi = a.max_rate_per_s * 1.5;
  if (!meets(lo)) {
    a.reason = fmt::format("even at {:.3g} requests/s the p{:g} TTFT is {:.1f} ms and TPOT {:.2f} ms; relax the limits "
                           "or use more GPUs per replica",
                           lo, q.percentile, at.ttft_at_percentile_s * 1e3, at.tpot_at_percentile_s * 1e3);
    return a;
  }
  SimResult best = at;
  if (meets(hi)) {
    lo = hi;
    best = at;
  } else {
    while (hi / lo > 1.01) {
      const double mid = std::sqrt(lo * hi);
      if (meets(mid)) {
        lo = mid;
        best = at;
      } else {
        hi = mid;
      }
    }
  }
  a.feasible = true;
  a.rate_per_s = lo;
  a.output_tokens_per_s = lo * static_cast<double>(workload.output_len);
  a.ttft_s = best.ttft_at_percentile_s;
  a.tpot_s = best.tpot_at_percentile_s;
  return a;
}

}  // namespace gpuplan
