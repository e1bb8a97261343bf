// infer-search with targets at a percentile (`--slo-percentile P`): the TTFT and TPOT targets
// apply to the P-th percentile of the scheduler simulation (sim_engine.h) of each candidate, not
// to the closed-form means. The closed-form pass ranks the plans; the simulation then checks
// them best first, so only the few plans near the top are simulated (docs/model/simulation.md §4).
#pragma once

#include "infer/sim_answer.h"

namespace gpuplan {

// The closed loop a candidate of the search is simulated under: `plan.load` clients (one
// replica) sending 10 requests each (genai-perf's request count as AIConfigurator's samples ran
// it), the first wave included, as a serving benchmark at that concurrency measures it.
SimWorkload search_sim_workload(const InferPlan& plan);

// Simulates one replica of `plan` (closed-form estimate `e`, feasible) under
// search_sim_workload, reading TTFT and TPOT at `percentile`. `replicas` of the answer is 1.
// `memo` (optional): step costs of this plan's layout, kept across its concurrencies (a step's
// cost depends on the batch and the layout, not on the load that formed the batch).
SimAnswer simulate_search_candidate(const InferContext& ctx, const InferPlan& plan, const InferEstimate& e,
                                    double percentile, SimStepMemo* memo = nullptr);

// A lower bound on the TTFT at `percentile` that simulate_search_candidate would report, without
// simulating: all C clients send at t = 0 and are admitted first come first served, so the j-th
// request of that first wave has its first token no sooner than the prompts of requests 1..j
// are prefilled, at best at the per-token cost of the fullest prompt step (a step's fixed costs
// spread over its tokens), after the request overhead. Enough of the first wave lies above the
// percentile's rank (10 requests per client: the top 1% is its last tenth at p99) that the
// percentile is at least that bound for the j where it does. 0 when no such j exists.
double search_ttft_lower_bound_s(const SimScheduler& sched, SimStepMemo& memo, const SimWorkload& w,
                                 double percentile);

// Do the simulated percentiles meet the targets (0 = none)?
bool sim_meets_targets(const SimResult& r, double ttft_s, double tpot_s);

}  // namespace gpuplan
