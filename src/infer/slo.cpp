#include "infer/slo.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

namespace gpuplan {

double erlang_c(int servers, double a) {
  // Erlang B by its stable recursion B(k) = a·B(k−1) / (k + a·B(k−1)), then
  // C = c·B / (c − a·(1 − B)) (Kleinrock 1975, Queueing Systems vol. 1 §3.5).
  double b = 1;
  for (int k = 1; k <= servers; ++k) b = a * b / (k + a * b);
  const double c = servers;
  return c * b / (c - a * (1 - b));
}

double mdc_wait_quantile_s(int servers, double lambda, double service_s, double p) {
  const double mu = 1 / service_s;
  const double a = lambda / mu;
  if (a >= servers) return std::numeric_limits<double>::infinity();
  // M/M/c: P(W > t) = C·exp(−(cμ − λ)t). Allen–Cunneen scales the mean wait by (1 + c_s²)/2
  // = ½ for deterministic service; keeping the exponential shape, the rate doubles.
  const double waits = erlang_c(servers, a);
  if (1 - p >= waits) return 0;
  return std::log(waits / (1 - p)) / (2 * (servers * mu - lambda));
}

OperatingPoint operating_point(const std::vector<ConcurrencyPoint>& points, double max_concurrency,
                               double rate_per_replica) {
  OperatingPoint op;
  if (points.empty()) return op;
  const ConcurrencyPoint& one = points.front();
  const ConcurrencyPoint* below = nullptr;
  for (const ConcurrencyPoint& p : points) {
    if (p.concurrency > max_concurrency || !(p.requests_per_s > 0)) break;
    if (p.requests_per_s >= rate_per_replica) {
      op.served = true;
      if (!below) {
        // Under one request in flight on average.
        op.concurrency = rate_per_replica / p.requests_per_s;
        op.tpot_s = p.tpot_s;
      } else {
        // Between two whole concurrencies: linear in the rate.
        const double f = (rate_per_replica - below->requests_per_s) / (p.requests_per_s - below->requests_per_s);
        op.concurrency = below->concurrency + f * (p.concurrency - below->concurrency);
        op.tpot_s = below->tpot_s + f * (p.tpot_s - below->tpot_s);
      }
      // A Poisson arrival sees the time average (PASTA): the engine busy with probability
      // 1 − e^(−N) (N in flight, Poisson-distributed as in M/G/∞), then half a step in flight
      // left, and its prompt's step carries the running decodes (their step's excess over one
      // sequence's). Idle, it is concurrency 1's TTFT.
      const double busy = 1 - std::exp(-op.concurrency);
      op.ttft_s = one.ttft_s + busy * (0.5 * op.tpot_s + std::max(0.0, op.tpot_s - one.tpot_s));
      return op;
    }
    below = &p;
  }
  return op;
}

SloEstimate estimate_slo(const InferContext& ctx, const InferPlan& plan, const SloInput& in) {
  SloEstimate s;
  InferPlan one = plan;
  one.replicas = 1;
  one.mode = InferMode::concurrency;
  one.load = 1;
  InferEstimate first = evaluate_inference(ctx, one);
  if (!first.feasible) {
    s.reason = first.reason;
    return s;
  }
  const auto meets = [&](const InferEstimate& e) {
    return e.feasible && (in.ttft_s <= 0 || e.point.ttft_s <= in.ttft_s) && (in.tpot_s <= 0 || e.point.tpot_s <= in.tpot_s);
  };
  // Every concurrency up to what runs at once (beyond it requests only queue for KV memory,
  // which raises TTFT and not the rate); the best rate among those meeting the targets.
  const double max_running = std::min(first.memory.max_seqs, replica_max_num_seqs(*ctx.engine, one));
  InferEstimate best;
  // Each concurrency's request rate and TTFT, kept for the operating point at an offered rate.
  std::vector<ConcurrencyPoint> points;
  for (double c = 1; c <= max_running; ++c) {
    one.load = c;
    const InferEstimate e = evaluate_inference(ctx, one);
    points.push_back({c, e.feasible ? e.requests_per_s : 0.0, e.point.ttft_s, e.point.tpot_s});
    if (meets(e) && (!best.feasible || e.requests_per_s > best.requests_per_s)) {
      best = e;
      s.concurrency = c;
    }
  }
  if (!best.feasible) {
    s.reason = fmt::format("no concurrency meets the targets (at concurrency 1: TTFT {:.2f} ms, TPOT {:.2f} ms); relax "
                           "--slo-ttft-ms / --slo-tpot-ms, or use more GPUs per replica",
                           first.point.ttft_s * 1e3, first.point.tpot_s * 1e3);
    return s;
  }
  s.feasible = true;
  s.ttft_s = best.point.ttft_s;
  s.tpot_s = best.point.tpot_s;
  s.goodput_requests_per_s_per_replica = best.requests_per_s;
  s.goodput_requests_per_s = best.requests_per_s * plan.replicas;
  s.goodput_output_tokens_per_s = s.goodput_requests_per_s * static_cast<double>(plan.output_len);
  s.request_life_s = s.concurrency / best.requests_per_s;
  if (in.request_rate <= 0) return s;

  // Fewest replicas: at least rate / goodput, more while the p90 TTFT with queueing misses.
  // Slots c = replicas × concurrency; a slot holds a request for its life (Little's law).
  const double out = static_cast<double>(plan.output_len);
  const int start = std::max(1, static_cast<int>(std::ceil(in.request_rate / s.goodput_requests_per_s_per_replica - 1e-9)));
  for (int r = start; r <= start + 10000; ++r) {
    const int slots = static_cast<int>(std::lround(r * s.concurrency));
    // Each replica runs at the concurrency whose closed-loop rate is its share of the offered
    // rate (Little's law: in flight = rate × life), not at the goodput point: a lightly loaded
    // replica's prompts see a small batch. Its requests' life at that point is the slots'
    // deterministic service time.
    const OperatingPoint op = operating_point(points, s.concurrency, in.request_rate / r);
    if (!op.served) continue;
    const double life_s = op.concurrency / (in.request_rate / r);
    const double load = in.request_rate * life_s;
    if (load >= slots) continue;
    const double p90 = op.ttft_s + mdc_wait_quantile_s(slots, in.request_rate, life_s, 0.9);
    if (in.ttft_s > 0 && p90 > in.ttft_s) continue;
    s.rate_served = true;
    s.replicas = r;
    s.gpus = r * plan.gpus_per_replica();
    s.operating_concurrency = op.concurrency;
    s.operating_ttft_s = op.ttft_s;
    s.utilization = load / slots;
    s.wait_mean_s = 0.5 * erlang_c(slots, load) / (slots / life_s - in.request_rate);
    s.ttft_p50_s = op.ttft_s + mdc_wait_quantile_s(slots, in.request_rate, life_s, 0.5);
    s.ttft_p90_s = p90;
    if (ctx.price_usd_per_gpu_hour > 0) {
      s.usd_per_hour = ctx.price_usd_per_gpu_hour * s.gpus;
      s.usd_per_million_output_tokens = s.usd_per_hour / 3600.0 / (in.request_rate * out) * 1e6;
    }
    break;
  }
  return s;
}

}  // namespace gpuplan
