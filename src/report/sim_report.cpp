#include "report/sim_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/table.h"

namespace gpuplan {
namespace {

const char* arrivals_name(SimArrivals a) {
  switch (a) {
    case SimArrivals::offline: return "offline";
    case SimArrivals::poisson: return "poisson";
    case SimArrivals::closed_loop: return "closed_loop";
  }
  return "closed_loop";
}

nlohmann::ordered_json percentiles_json(const SimPercentiles& p) {
  nlohmann::ordered_json j;
  j["mean"] = p.mean;
  j["p50"] = p.p50;
  j["p90"] = p.p90;
  j["p99"] = p.p99;
  return j;
}

std::vector<std::string> row(const char* name, const SimPercentiles& p, double scale, int decimals) {
  return {name, fmt_number(p.mean * scale, decimals), fmt_number(p.p50 * scale, decimals),
          fmt_number(p.p90 * scale, decimals), fmt_number(p.p99 * scale, decimals)};
}

}  // namespace

nlohmann::ordered_json simulation_json(const SimAnswer& a) {
  const SimWorkload& w = a.workload;
  const SimScheduler& s = a.scheduler;
  const SimResult& r = a.result;
  nlohmann::ordered_json j;
  j["arrivals"] = arrivals_name(w.arrivals);
  if (w.arrivals == SimArrivals::closed_loop) j["clients"] = w.clients;
  if (w.arrivals == SimArrivals::poisson) j["rate_per_s_per_replica"] = w.rate_per_s;
  j["requests_sent"] = a.requests_sent;
  j["warmup_requests"] = w.warmup_requests;
  j["seed"] = w.seed;
  j["input_spread"] = w.input_spread;
  j["output_spread"] = w.output_spread;
  j["random_range_ratio"] = w.input_range_ratio;
  j["lengths_rows"] = w.lengths ? w.lengths->input.size() : 0;
  nlohmann::ordered_json sj;
  sj["max_num_seqs"] = s.max_num_seqs;
  sj["token_budget"] = s.token_budget;
  sj["chunked_prefill"] = s.chunked_prefill;
  sj["step_policy"] = s.prefill_first ? "prefill_first" : "running_first";
  sj["reserve_full_sequence"] = s.reserve_full_sequence;
  sj["kv_blocks"] = s.kv_blocks;
  sj["block_tokens"] = s.block_tokens;
  sj["cuda_graph_max_batch"] = s.cuda_graph_batch_sizes.empty() ? 0.0 : s.cuda_graph_batch_sizes.back();
  j["scheduler"] = sj;
  j["requests_measured"] = r.requests;
  j["ttft_s"] = percentiles_json(r.ttft_s);
  j["tpot_s"] = percentiles_json(r.tpot_s);
  j["itl_s"] = percentiles_json(r.itl_s);
  j["e2e_s"] = percentiles_json(r.e2e_s);
  j["duration_s"] = r.duration_s;
  j["output_tokens_per_s_per_replica"] = r.output_tokens_per_s;
  j["output_tokens_per_s"] = r.output_tokens_per_s * a.replicas;
  j["requests_per_s"] = r.requests_per_s * a.replicas;
  j["mean_running"] = r.mean_running;
  j["peak_running"] = r.peak_running;
  j["preemptions"] = r.preemptions;
  j["steps"] = r.steps;
  j["step_costs"] = r.step_costs;
  return j;
}

std::string simulation_text(const SimAnswer& a) {
  const SimWorkload& w = a.workload;
  const SimScheduler& s = a.scheduler;
  const SimResult& r = a.result;
  const std::string load = w.arrivals == SimArrivals::closed_loop
                               ? fmt::format("closed loop of {} clients", w.clients)
                               : fmt::format("Poisson arrivals at {} requests/s per replica", fmt_number(w.rate_per_s, 2));
  std::string out = fmt::format(
      "\nsimulated scheduler: {}, {} requests ({} measured); {}, {} prefill, {} tokens and {} sequences per step, "
      "{} KV blocks of {} tokens\n",
      load, a.requests_sent, r.requests, s.prefill_first ? "prefill first" : "running first",
      s.chunked_prefill ? "chunked" : "whole-prompt", fmt_number(s.token_budget), fmt_number(s.max_num_seqs),
      fmt_number(s.kv_blocks), fmt_number(s.block_tokens));
  TextTable t({"latency", "mean", "p50", "p90", "p99"},
              {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right});
  t.add_row(row("TTFT ms", r.ttft_s, 1e3, 1));
  t.add_row(row("TPOT ms", r.tpot_s, 1e3, 2));
  t.add_row(row("ITL ms", r.itl_s, 1e3, 2));
  t.add_row(row("end to end s", r.e2e_s, 1, 2));
  out += t.render();
  out += fmt::format("simulated throughput: {} output tokens/s ({} requests/s), mean running batch {}, {} preemptions, "
                     "{} steps\n",
                     fmt_number(r.output_tokens_per_s * a.replicas), fmt_number(r.requests_per_s * a.replicas, 2),
                     fmt_number(r.mean_running, 1), r.preemptions, r.steps);
  // Said with every simulated answer (docs/validation.md, "Scheduler simulation", 2026-11-27):
  // replaying the benchmark's drawn lengths, the simulation's held-out TTFT/TPOT error equals the
  // closed form's (leave-one-GPU-out TTFT 11.2% against 11.6%), better on vLLM, worse on trtllm;
  // with fixed lengths a closed loop stays in lockstep, which the measured runs did not.
  out += "note: held out, the simulated TTFT and TPOT are as close as the closed form's (docs/validation.md) when the "
         "lengths are drawn as the benchmark drew them (--random-range-ratio 0.8 for InferenceMAX runs); fixed lengths "
         "keep a closed loop in lockstep\n";
  return out;
}

}  // namespace gpuplan
