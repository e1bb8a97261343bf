// An offline benchmark that sends a fixed number of requests at t = 0 (`trtllm-bench throughput`
// on a dataset of N requests) measures its whole run: the ramp-up while the running batch fills,
// the steady state, and the drain while the last requests finish with an emptying batch. The
// closed form (batching.h) answers the steady state only. This scales it by the benchmark's
// finite run, through the scheduler simulation (sim_engine.h). Docs: docs/model/moe-serving.md,
// "The benchmark's finite request count".
#pragma once

#include "infer/infer_context.h"
#include "infer/infer_plan.h"
#include "infer/memory_budget.h"

namespace gpuplan {

class SimStepMemo;

struct FiniteRun {
  int requests = 0;       // N, the benchmark's dataset
  double run_s = 0;       // the N requests from t = 0 to the last token, simulated
  double long_run_s = 0;  // kLongRunMultiple × N requests, likewise
  // The N requests at the long run's marginal rate: (long_run_s − run_s) / (multiple − 1), the
  // time they take once the ramp-up and the drain (paid once per run) are out.
  double steady_s = 0;
  double factor = 1;      // steady_s / run_s: the benchmark's output tokens/s over the steady state's
};

// The long run's size in benchmark runs: its marginal rate averages the engine's cohorts (equal
// lengths keep requests admitted together finishing together) over several generations.
inline constexpr int kLongRunMultiple = 4;

// steady_s and factor from the two run times: T(N) = N·τ + Δ, T(m·N) = m·N·τ + Δ (the ramp-up and
// drain Δ paid once per run) → N·τ = (T(mN) − T(N)) / (m − 1), factor = N·τ / T(N).
// 1 when either time is not positive or m ≤ 1.
FiniteRun finite_run_of(int requests, double run_s, double long_run_s, int multiple = kLongRunMultiple);

// The finite run of `requests` requests of plan's lengths, all sent at t = 0 to one replica of
// `plan` (its KV pool as `memory` says), simulated with the benchmark's fixed lengths. `memo`
// (optional) keeps the step costs between the two simulations and across calls.
FiniteRun simulate_finite_run(const InferContext& ctx, const InferPlan& plan, const InferMemory& memory, int requests,
                              SimStepMemo* memo = nullptr);

}  // namespace gpuplan
