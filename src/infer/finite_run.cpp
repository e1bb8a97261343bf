#include "infer/finite_run.h"

#include "infer/sim_engine.h"
#include "infer/sim_workload.h"

namespace gpuplan {

FiniteRun finite_run_of(int requests, double run_s, double long_run_s, int multiple) {
  FiniteRun r;
  r.requests = requests;
  r.run_s = run_s;
  r.long_run_s = long_run_s;
  if (!(run_s > 0) || !(long_run_s > 0) || multiple <= 1) return r;
  r.steady_s = (long_run_s - run_s) / (multiple - 1);
  if (!(r.steady_s > 0)) return r;
  r.factor = r.steady_s / run_s;
  return r;
}

FiniteRun simulate_finite_run(const InferContext& ctx, const InferPlan& plan, const InferMemory& memory, int requests,
                              SimStepMemo* memo) {
  if (requests <= 0) return finite_run_of(requests, 0, 0);
  InferPlan one = plan;
  one.replicas = 1;
  const SimScheduler sched = sim_scheduler_of(ctx, one, memory);
  // trtllm-bench throughput: every request of the dataset queued at once (a closed loop with as
  // many clients as requests sends them all at t = 0), lengths exactly as the dataset's
  // (prepare_dataset.py token-norm-dist with stdev 0: no spread).
  const auto run_of = [&](int n) {
    SimWorkload w;
    w.arrivals = SimArrivals::closed_loop;
    w.clients = n;
    w.requests = n;
    w.input_len = plan.input_len;
    w.output_len = plan.output_len;
    return simulate_serving(ctx, one, sched, w, {}, memo).duration_s;
  };
  return finite_run_of(requests, run_of(requests), run_of(kLongRunMultiple * requests));
}

}  // namespace gpuplan
