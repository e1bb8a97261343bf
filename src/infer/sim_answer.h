// `gpuplan infer --concurrency C` and `--request-rate R`: the scheduler simulation's latency
// distributions for the plan (sim_engine.h), next to the closed-form estimate. The request
// fields are one block of InferRequest; the answer one block of InferAnswer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "infer/evaluate.h"
#include "infer/sim_engine.h"

namespace gpuplan {

struct SimOptions {
  bool enabled = true;              // false: no simulation (the closed-form curves of the HTML report)
  std::optional<int> requests;      // --sim-requests; none = the tools' default (sim_workload.h)
  std::int64_t seed = 0;            // --sim-seed (>= 0)
  int warmup_requests = 0;          // --sim-warmup
  double input_spread = 0;          // --input-spread s: prompt lengths uniform in [L(1 − s), L(1 + s)]
  double output_spread = 0;         // --output-spread
  // --random-range-ratio r: prompt and output lengths integers uniform in [⌊L·r⌋, L], as
  // benchmark_serving drew them before vLLM 0.9 and InferenceMAX's client does (sim_workload.h)
  double random_range_ratio = 1;
  // --lengths-csv FILE: one prompt and output length per request (parse_sim_lengths_csv), in
  // place of --input-len/--output-len for the simulated requests; empty = none
  std::string lengths_csv;
};

struct SimAnswer {
  SimWorkload workload;
  SimScheduler scheduler;
  SimResult result;
  int replicas = 1;  // a request rate is split evenly over the plan's replicas (Poisson thinning)
  int requests_sent = 0;  // sim_request_count(workload): the requests the simulation sends
};

// Checks the options (Error naming the flag); an answer when the plan is feasible and the load is
// a closed loop (`concurrency`) or a request rate (> 0), none otherwise.
std::optional<SimAnswer> answer_simulation(const InferContext& ctx, const InferPlan& plan, const InferEstimate& base,
                                           const std::optional<double>& concurrency, double request_rate,
                                           const SimOptions& options);

}  // namespace gpuplan
