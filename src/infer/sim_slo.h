// The highest request rate a serving plan sustains within latency limits at a percentile:
// MLPerf Inference's Server question (Poisson arrivals; TTFT and TPOT limits at the 99th
// percentile in its LLM benchmarks), answered by simulating the scheduler (sim_engine.h) at
// rates found by bisection. docs/model/simulation.md §4.
#pragma once

#include <string>

#include "infer/sim_engine.h"

namespace gpuplan {

struct SimRateQuestion {
  double ttft_s = 0;        // limit on TTFT at the percentile (0 = none)
  double tpot_s = 0;        // limit on TPOT at the percentile (0 = none)
  double percentile = 99;
  int requests = 1000;      // per simulated run (benchmark_serving --num-prompts default)
  std::uint64_t seed = 0;
};

struct SimRateAnswer {
  bool feasible = false;         // some rate meets the limits
  std::string reason;            // why not
  double rate_per_s = 0;         // the highest rate found (within 1% of the boundary)
  double output_tokens_per_s = 0;  // rate × output tokens per request: what that rate delivers
  double ttft_s = 0;             // TTFT and TPOT at the percentile, at that rate
  double tpot_s = 0;
  double max_rate_per_s = 0;     // the offline (all at once) request rate: the bracket's top
  int runs = 0;                  // simulations run
};

// `workload` gives the lengths (and seed); its arrivals and request count are set here.
SimRateAnswer max_rate_within_slo(const InferContext& ctx, const InferPlan& plan, const SimScheduler& sched,
                                  const SimWorkload& workload, const SimRateQuestion& question);

}  // namespace gpuplan
