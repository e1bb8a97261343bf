// Answers per service-level objective for one serving plan: goodput (the highest request rate
// whose predicted TTFT and TPOT meet the targets; Zhong et al. 2024, DistServe §2, define
// goodput this way) and, for an offered request rate, the fewest replicas (GPUs, $/hour,
// $/M tokens) that serve it within the targets, with TTFT percentiles under Poisson arrivals.
// Queueing model: M/D/c (Poisson arrivals; c = concurrency slots of all replicas; each slot
// holds a request for its deterministic life), its wait approximated as Allen–Cunneen does:
// the M/M/c (Erlang C) wait times (1 + c_s²)/2 = ½ for deterministic service, with the
// exponential tail of the M/M/c wait. Formulas: docs/model/serving-features.md §4.
#pragma once

#include <string>
#include <vector>

#include "infer/evaluate.h"
#include "infer/infer_context.h"
#include "infer/infer_plan.h"

namespace gpuplan {

struct SloInput {
  double ttft_s = 0;        // 0 = no target
  double tpot_s = 0;        // 0 = no target
  double request_rate = 0;  // requests/s offered (Poisson); 0 = goodput only
};

struct SloEstimate {
  bool feasible = false;   // some concurrency meets the targets
  std::string reason;
  double concurrency = 0;  // per replica: the goodput point
  double ttft_s = 0;       // at that point, no queueing
  double tpot_s = 0;
  double goodput_requests_per_s_per_replica = 0;
  double goodput_requests_per_s = 0;  // the plan's replicas
  double goodput_output_tokens_per_s = 0;
  double request_life_s = 0;  // a request's time in a slot (TTFT + (O − 1) × TPOT)
  // With a request rate:
  bool rate_served = false;
  int replicas = 0;        // fewest replicas meeting the targets at the rate (p90 TTFT with queueing)
  int gpus = 0;
  // Each replica's share of the rate runs at the concurrency whose closed-loop rate it is
  // (Little's law), at most the goodput point's: the mean requests in flight per replica and
  // the TTFT there, before queueing for a slot (operating_point).
  double operating_concurrency = 0;
  double operating_ttft_s = 0;
  double utilization = 0;  // in flight / slots of those replicas
  double wait_mean_s = 0;
  double ttft_p50_s = 0;
  double ttft_p90_s = 0;
  double usd_per_hour = 0;                   // 0 = no price in the catalog
  double usd_per_million_output_tokens = 0;  // at the offered rate
};

// Erlang C: the probability an arrival waits in M/M/c with offered load a = λ/μ (a < c).
double erlang_c(int servers, double offered_load);

// The p-quantile (0 < p < 1) of the M/D/c wait in the Allen–Cunneen approximation.
double mdc_wait_quantile_s(int servers, double arrival_rate, double service_s, double p);

// One closed-loop concurrency's request rate, TTFT and TPOT (a replica).
struct ConcurrencyPoint {
  double concurrency = 0;
  double requests_per_s = 0;  // 0 = the concurrency does not run
  double ttft_s = 0;
  double tpot_s = 0;
};
struct OperatingPoint {
  bool served = false;  // some concurrency up to the cap reaches the rate
  double concurrency = 0;  // mean requests in flight
  double tpot_s = 0;
  double ttft_s = 0;       // before any wait for a slot
};
// A replica under Poisson arrivals at `rate_per_replica`: the concurrency N at which its closed
// loop completes that rate (Little's law; interpolated linearly in the rate between whole
// concurrencies, below one in flight the rate's share of one request), the TPOT there, and the
// TTFT a Poisson arrival sees (PASTA): concurrency 1's TTFT, plus, when the engine is busy
// (probability 1 − e^(−N)), half a step in flight and the running decodes its prompt's step
// carries (TPOT(N) − TPOT(1)). Points in increasing concurrency from 1; none above
// `max_concurrency` used. Why not the closed loop's TTFT at N: a closed loop with fixed lengths
// sends its prompts in cohorts, Poisson arrivals one at a time.
OperatingPoint operating_point(const std::vector<ConcurrencyPoint>& points, double max_concurrency,
                               double rate_per_replica);

SloEstimate estimate_slo(const InferContext& ctx, const InferPlan& plan, const SloInput& in);

}  // namespace gpuplan
