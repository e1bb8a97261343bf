#include "infer/sim_answer.h"

#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "core/error.h"
#include "core/input_file.h"

namespace gpuplan {

std::optional<SimAnswer> answer_simulation(const InferContext& ctx, const InferPlan& plan, const InferEstimate& base,
                                           const std::optional<double>& concurrency, double request_rate,
                                           const SimOptions& o) {
  if (o.requests && !(*o.requests >= 1 && *o.requests <= 1000000)) {
    throw Error(fmt::format("--sim-requests {}: simulate 1 to 1,000,000 requests; leave it out for the benchmark "
                            "tools' default (10 per client, else 1,000)",
                            *o.requests));
  }
  if (o.warmup_requests < 0) {
    throw Error(fmt::format("--sim-warmup {}: the warm-up requests cannot be negative; use 0 or more",
                            o.warmup_requests));
  }
  const auto spread = [](const char* flag, double s) {
    if (!(s >= 0 && s < 1)) {
      throw Error(fmt::format("{} {}: the spread must be in [0, 1) (lengths uniform in L(1 - s) .. L(1 + s)); give "
                              "e.g. 0.2, or 0 for fixed lengths",
                              flag, s));
    }
  };
  if (o.seed < 0) throw Error(fmt::format("--sim-seed {}: use a seed of 0 or more", o.seed));
  spread("--input-spread", o.input_spread);
  spread("--output-spread", o.output_spread);
  if (!(o.random_range_ratio > 0 && o.random_range_ratio <= 1)) {
    throw Error(fmt::format("--random-range-ratio {}: the ratio must be in (0, 1] (lengths uniform in floor(L * r) .. "
                            "L); give e.g. 0.8, or 1 for fixed lengths",
                            o.random_range_ratio));
  }
  if (o.random_range_ratio < 1 && (o.input_spread > 0 || o.output_spread > 0)) {
    throw Error(fmt::format("--random-range-ratio {}: give it or --input-spread/--output-spread, not both (two rules "
                            "for the same lengths)",
                            o.random_range_ratio));
  }
  if (!o.lengths_csv.empty() && (o.random_range_ratio < 1 || o.input_spread > 0 || o.output_spread > 0)) {
    throw Error(fmt::format("--lengths-csv {}: the file gives every length; leave out --random-range-ratio, "
                            "--input-spread and --output-spread",
                            o.lengths_csv));
  }
  std::shared_ptr<const SimLengths> lengths;
  if (!o.lengths_csv.empty()) {
    lengths = std::make_shared<const SimLengths>(
        parse_sim_lengths_csv(read_input_file(o.lengths_csv, "--lengths-csv"), o.lengths_csv));
  }
  if (!o.enabled || !base.feasible || (!concurrency && !(request_rate > 0))) return std::nullopt;
  SimAnswer a;
  a.replicas = plan.replicas;
  SimWorkload& w = a.workload;
  w.input_len = plan.input_len;
  w.output_len = plan.output_len;
  w.input_spread = o.input_spread;
  w.output_spread = o.output_spread;
  w.input_range_ratio = o.random_range_ratio;
  w.output_range_ratio = o.random_range_ratio;
  w.lengths = lengths;
  w.seed = static_cast<std::uint64_t>(o.seed);
  if (concurrency) {
    // --concurrency C per replica, as the closed-form estimate reads it.
    w.arrivals = SimArrivals::closed_loop;
    w.clients = static_cast<int>(std::ceil(*concurrency - 1e-9));
  } else {
    w.arrivals = SimArrivals::poisson;
    w.rate_per_s = request_rate / plan.replicas;
  }
  w.requests = o.requests.value_or(0);
  if (o.warmup_requests >= sim_request_count(w)) {
    throw Error(fmt::format("--sim-warmup {}: leaves no request to measure of the {} simulated; lower it or raise "
                            "--sim-requests",
                            o.warmup_requests, sim_request_count(w)));
  }
  w.warmup_requests = o.warmup_requests;
  a.requests_sent = sim_request_count(w);
  InferPlan one = plan;
  one.replicas = 1;
  a.scheduler = sim_scheduler_of(ctx, one, base.memory);
  a.result = simulate_serving(ctx, one, a.scheduler, w);
  return a;
}

}  // namespace gpuplan
