// Speed of the scheduler simulation (docs/performance.md, "Scheduler simulation"): 10,000
// requests through one replica, each iteration a fresh step memo (the cold cost a single
// `infer --request-rate` pays), under Poisson arrivals near the engine's capacity and in a
// closed loop; and one max_rate_within_slo search (a bisection of such runs sharing a memo).
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "catalog/system_choice.h"
#include "infer/evaluate.h"
#include "infer/sim_engine.h"
#include "infer/sim_slo.h"

namespace gpuplan {
namespace {

struct SimSetup {
  const Catalog& catalog = default_catalog();
  InferContext ctx;
  InferPlan plan;
  SimScheduler sched;
  SimSetup(const char* engine, int tp)
      : ctx(make_infer_context(catalog, catalog.model("llama3.1-70b"), catalog.gpu("h100-sxm"), catalog.engine(engine),
                               default_system_for(catalog, catalog.gpu("h100-sxm")))) {
    plan.tp = tp;
    plan.weights = Precision::fp8;
    plan.kv = Precision::fp8;
    plan.input_len = 1024;
    plan.output_len = 256;
    plan.mode = InferMode::concurrency;
    sched = sim_scheduler_of(ctx, plan, infer_memory(ctx, plan));
  }
};

void run(benchmark::State& state, const SimSetup& s, const SimWorkload& w) {
  SimResult r;
  for (auto _ : state) {
    r = simulate_serving(s.ctx, s.plan, s.sched, w);
    benchmark::DoNotOptimize(r);
  }
  state.counters["steps"] = r.steps;
  state.counters["step_costs"] = r.step_costs;
  state.counters["p99_ttft_ms"] = r.ttft_s.p99 * 1e3;
  state.SetItemsProcessed(state.iterations() * w.requests);
}

void BM_Sim10kPoissonVllm70BTp4(benchmark::State& state) {
  static const SimSetup s("vllm", 4);
  SimWorkload w;
  w.arrivals = SimArrivals::poisson;
  w.requests = 10000;
  w.rate_per_s = 8;
  w.input_spread = 0.2;
  w.output_spread = 0.2;
  run(state, s, w);
}
BENCHMARK(BM_Sim10kPoissonVllm70BTp4)->Unit(benchmark::kMillisecond);

void BM_Sim10kClosedLoopTrtllm70BTp4(benchmark::State& state) {
  static const SimSetup s("trtllm", 4);
  SimWorkload w;
  w.arrivals = SimArrivals::closed_loop;
  w.clients = 64;
  w.requests = 10000;
  run(state, s, w);
}
BENCHMARK(BM_Sim10kClosedLoopTrtllm70BTp4)->Unit(benchmark::kMillisecond);

void BM_SimMaxRateWithinSlo70BTp4(benchmark::State& state) {
  static const SimSetup s("vllm", 4);
  SimWorkload w;
  SimRateQuestion q;
  q.ttft_s = 2.0;
  q.tpot_s = 0.08;
  SimRateAnswer a;
  for (auto _ : state) {
    a = max_rate_within_slo(s.ctx, s.plan, s.sched, w, q);
    benchmark::DoNotOptimize(a);
  }
  state.counters["runs"] = a.runs;
  state.counters["rate_per_s"] = a.rate_per_s;
}
BENCHMARK(BM_SimMaxRateWithinSlo70BTp4)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpuplan
