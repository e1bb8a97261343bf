#include "report/infer_features_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/table.h"
#include "core/units.h"

namespace gpuplan {
namespace {

std::string feature_ms(double s) { return fmt::format("{:.2f} ms", s * 1e3); }

nlohmann::ordered_json spec_json(const SpecDecodeAnswer& a) {
  const SpecDecodeEstimate& e = a.estimate;
  nlohmann::ordered_json j;
  j["draft"] = a.input.mtp ? std::string("mtp") : a.draft_model->id;
  j["draft_tp"] = a.input.draft_tp;
  j["draft_tokens"] = a.input.draft_tokens;
  j["acceptance"] = a.input.acceptance;
  j["expected_tokens_per_step"] = e.expected_tokens;
  j["feasible"] = e.feasible;
  if (!e.feasible) {
    j["reason"] = e.reason;
    return j;
  }
  j["draft_weights_bytes_per_gpu"] = e.draft_weights_bytes;
  j["draft_kv_per_seq_bytes"] = e.draft_kv_per_seq_bytes;
  j["spec_slots_per_seq_bytes"] = e.spec_slots_per_seq_bytes;
  j["max_seqs"] = e.max_seqs;
  j["running"] = e.running;
  j["draft_step_s"] = e.draft_step_s;
  j["verify_step_s"] = e.verify_step_s;
  j["decode_step_s"] = e.decode_step_s;
  j["draft_prefill_s"] = e.draft_prefill_s;
  j["ttft_s"] = e.ttft_s;
  j["tpot_s"] = e.tpot_s;
  j["base_tpot_s"] = e.base_tpot_s;
  j["speedup"] = e.speedup;
  j["output_tokens_per_s"] = e.output_tokens_per_s;
  j["output_tokens_per_s_per_gpu"] = e.output_tokens_per_s_per_gpu;
  j["requests_per_s"] = e.requests_per_s;
  return j;
}

std::string spec_text(const SpecDecodeAnswer& a) {
  const SpecDecodeEstimate& e = a.estimate;
  std::string s = fmt::format("\nspeculative decoding: draft {} (tp {}), K = {} drafted tokens, acceptance {:.2f} → "
                              "{:.3f} tokens kept per verify step\n",
                              a.input.mtp ? std::string("MTP module") : a.draft_model->id, a.input.draft_tp,
                              a.input.draft_tokens, a.input.acceptance, e.expected_tokens);
  if (!e.feasible) return s + "infeasible: " + e.reason + "\n";
  TextTable t({"speculative", "value"}, {TextTable::Align::left, TextTable::Align::right});
  t.add_row({"TTFT", feature_ms(e.ttft_s)});
  t.add_row({"TPOT", fmt::format("{} (plain {}, {:.2f}×)", feature_ms(e.tpot_s), feature_ms(e.base_tpot_s), e.speedup)});
  t.add_row({"output tokens/s (total)", fmt_number(e.output_tokens_per_s)});
  t.add_row({"output tokens/s per GPU", fmt_number(e.output_tokens_per_s_per_gpu)});
  t.add_row({"running sequences", fmt_number(e.running)});
  t.add_row({"draft step · verify step", fmt::format("{} · {}", feature_ms(e.draft_step_s), feature_ms(e.verify_step_s))});
  t.add_row({"draft weights per GPU", fmt::format("{:.2f} GiB", e.draft_weights_bytes / kGiB)});
  t.add_row({"draft KV per sequence", fmt::format("{:.1f} MiB", e.draft_kv_per_seq_bytes / kMiB)});
  return s + t.render();
}

nlohmann::ordered_json prefix_json(const PrefixCacheAnswer& a) {
  const PrefixCacheEstimate& e = a.estimate;
  nlohmann::ordered_json j;
  j["hit_rate"] = a.input.hit_rate;
  j["shared_prefix_tokens"] = a.input.shared_prefix_tokens;
  j["feasible"] = e.feasible;
  if (!e.feasible) {
    j["reason"] = e.reason;
    return j;
  }
  j["cached_tokens"] = e.cached_tokens;
  j["computed_tokens"] = e.computed_tokens;
  j["shared_blocks_tokens"] = e.shared_blocks_tokens;
  j["shared_kv_bytes_per_gpu"] = e.shared_kv_bytes;
  j["kv_per_seq_bytes"] = e.kv_per_seq_bytes;
  j["max_seqs"] = e.max_seqs;
  j["running"] = e.running;
  j["prompts_per_prefill_step"] = e.prompts_per_prefill_step;
  j["prefill_step_s"] = e.prefill_step_s;
  j["prefill_step_uncached_s"] = e.prefill_step_uncached_s;
  j["prefill_ratio"] = e.prefill_ratio;
  j["prefill_prompt_tokens_per_s"] = e.prefill_prompt_tokens_per_s;
  j["ttft_s"] = e.ttft_s;
  j["tpot_s"] = e.tpot_s;
  j["output_tokens_per_s"] = e.output_tokens_per_s;
  j["output_tokens_per_s_per_gpu"] = e.output_tokens_per_s_per_gpu;
  j["requests_per_s"] = e.requests_per_s;
  return j;
}

std::string prefix_text(const PrefixCacheAnswer& a) {
  const PrefixCacheEstimate& e = a.estimate;
  std::string s = fmt::format("\nprefix caching: hit rate {:.2f} ({:.0f} of each prompt's tokens cached, {:.0f} computed), "
                              "shared prefix {:.0f} tokens held once\n",
                              a.input.hit_rate, e.cached_tokens, e.computed_tokens, e.shared_blocks_tokens);
  if (!e.feasible) return s + "infeasible: " + e.reason + "\n";
  TextTable t({"prefix cached", "value"}, {TextTable::Align::left, TextTable::Align::right});
  t.add_row({"TTFT", feature_ms(e.ttft_s)});
  t.add_row({"TPOT", feature_ms(e.tpot_s)});
  t.add_row({"output tokens/s (total)", fmt_number(e.output_tokens_per_s)});
  t.add_row({"output tokens/s per GPU", fmt_number(e.output_tokens_per_s_per_gpu)});
  t.add_row({"running sequences", fmt_number(e.running)});
  t.add_row({"prefill step (cached / uncached)",
             fmt::format("{} / {} ({:.2f}×)", feature_ms(e.prefill_step_s), feature_ms(e.prefill_step_uncached_s),
                         e.prefill_ratio)});
  t.add_row({"prefill prompt tokens/s", fmt_number(e.prefill_prompt_tokens_per_s)});
  t.add_row({"shared prefix KV per GPU", fmt::format("{:.1f} MiB", e.shared_kv_bytes / kMiB)});
  return s + t.render();
}

nlohmann::ordered_json disagg_json(const DisaggAnswer& a) {
  const DisaggEstimate& e = a.estimate;
  nlohmann::ordered_json j;
  j["prefill_gpus"] = a.input.prefill_gpus;
  j["decode_gpus"] = a.input.decode_gpus;
  j["prefill_tp"] = a.input.prefill_tp;
  j["decode_tp"] = a.input.decode_tp;
  j["prefill_gpu"] = e.prefill_gpu;
  j["decode_gpu"] = e.decode_gpu;
  j["feasible"] = e.feasible;
  if (!e.feasible) {
    j["reason"] = e.reason;
    return j;
  }
  j["prefill_replicas"] = e.prefill_replicas;
  j["decode_replicas"] = e.decode_replicas;
  j["prompts_per_prefill_step"] = e.prompts_per_prefill_step;
  j["prefill_step_s"] = e.prefill_step_s;
  j["prefill_latency_s"] = e.prefill_latency_s;
  j["prefill_requests_per_s"] = e.prefill_requests_per_s;
  j["kv_bytes_per_request"] = e.kv_bytes_per_request;
  j["kv_bytes_per_gpu"] = e.kv_bytes_per_gpu;
  j["kv_transfer_s"] = e.kv_transfer_s;
  j["fabric"] = e.fabric;
  j["transfer_requests_per_s"] = e.transfer_requests_per_s;
  j["decode_running"] = e.decode_running;
  j["decode_limit"] = e.decode_limit;
  j["decode_step_s"] = e.decode_step_s;
  j["decode_requests_per_s"] = e.decode_requests_per_s;
  j["ttft_s"] = e.ttft_s;
  j["tpot_s"] = e.tpot_s;
  j["requests_per_s"] = e.requests_per_s;
  j["output_tokens_per_s"] = e.output_tokens_per_s;
  j["output_tokens_per_s_per_gpu"] = e.output_tokens_per_s_per_gpu;
  j["bottleneck"] = e.bottleneck;
  j["cost_usd_per_hour"] = e.cost_usd_per_hour > 0 ? nlohmann::ordered_json(e.cost_usd_per_hour) : nullptr;
  j["usd_per_million_output_tokens"] =
      e.usd_per_million_output_tokens > 0 ? nlohmann::ordered_json(e.usd_per_million_output_tokens) : nullptr;
  j["balanced_prefill_share"] = e.balanced_prefill_share;
  j["balanced_prefill_gpus"] = e.balanced_prefill_gpus;
  j["balanced_decode_gpus"] = e.balanced_decode_gpus;
  j["balanced_requests_per_s"] = e.balanced_requests_per_s;
  return j;
}

std::string disagg_text(const DisaggAnswer& a) {
  const DisaggEstimate& e = a.estimate;
  const bool two_types = !e.prefill_gpu.empty() && e.prefill_gpu != e.decode_gpu;
  std::string s = two_types ? fmt::format("\ndisaggregated: prefill {} × {} (tp {}) : decode {} × {} (tp {})\n",
                                          a.input.prefill_gpus, e.prefill_gpu, a.input.prefill_tp,
                                          a.input.decode_gpus, e.decode_gpu, a.input.decode_tp)
                            : fmt::format("\ndisaggregated: prefill {} GPUs (tp {}) : decode {} GPUs (tp {})\n",
                                          a.input.prefill_gpus, a.input.prefill_tp, a.input.decode_gpus,
                                          a.input.decode_tp);
  if (!e.feasible) return s + "infeasible: " + e.reason + "\n";
  TextTable t({"disaggregated", "value"}, {TextTable::Align::left, TextTable::Align::right});
  t.add_row({"TTFT (prefill + KV transfer)", fmt::format("{} ({} + {})", feature_ms(e.ttft_s), feature_ms(e.prefill_latency_s),
                                                         feature_ms(e.kv_transfer_s))});
  t.add_row({"TPOT", feature_ms(e.tpot_s)});
  t.add_row({"prefill pool requests/s", fmt_number(e.prefill_requests_per_s, 2)});
  t.add_row({"KV transfer requests/s", fmt_number(e.transfer_requests_per_s, 2)});
  t.add_row({"decode pool requests/s", fmt_number(e.decode_requests_per_s, 2)});
  t.add_row({"service requests/s", fmt_number(e.requests_per_s, 2)});
  t.add_row({"output tokens/s per GPU", fmt_number(e.output_tokens_per_s_per_gpu)});
  t.add_row({"KV per request over " + e.fabric, fmt::format("{:.1f} MiB", e.kv_bytes_per_request / kMiB)});
  if (two_types && e.usd_per_million_output_tokens > 0) {
    t.add_row({"$ per hour (on-demand)", fmt::format("{:.2f}", e.cost_usd_per_hour)});
    t.add_row({"$ per million output tokens", fmt::format("{:.3f}", e.usd_per_million_output_tokens)});
  }
  s += t.render();
  if (two_types) {
    s += fmt::format("bottleneck pool: {} · decode batch {} ({}) · balanced: {} {} prefill GPUs for the {} {} decode "
                     "GPUs ({:.2f} requests/s; ideal prefill share of the {} {:.0f}%)\n",
                     e.bottleneck, fmt_number(e.decode_running), e.decode_limit, e.balanced_prefill_gpus, e.prefill_gpu,
                     e.balanced_decode_gpus, e.decode_gpu, e.balanced_requests_per_s,
                     e.cost_usd_per_hour > 0 ? "spend" : "GPUs", 100 * e.balanced_prefill_share);
    return s;
  }
  s += fmt::format("bottleneck pool: {} · decode batch {} ({}) · balanced: {} prefill : {} decode GPUs ({:.2f} "
                   "requests/s; ideal prefill share {:.0f}%)\n",
                   e.bottleneck, fmt_number(e.decode_running), e.decode_limit, e.balanced_prefill_gpus,
                   e.balanced_decode_gpus, e.balanced_requests_per_s, 100 * e.balanced_prefill_share);
  return s;
}

nlohmann::ordered_json disagg_candidate_json(const DisaggCandidate& c) {
  nlohmann::ordered_json j;
  j["prefill_gpu"] = c.prefill_gpu;
  j["prefill_tp"] = c.prefill_tp;
  j["decode_tp"] = c.decode_tp;
  j["decode_batch"] = c.estimate.decode_running;
  j["ttft_s"] = c.estimate.ttft_s;
  j["tpot_s"] = c.estimate.tpot_s;
  j["kv_transfer_s"] = c.estimate.kv_transfer_s;
  j["fabric"] = c.estimate.fabric;
  j["prefill_requests_per_s_per_gpu"] = c.prefill_requests_per_s_per_gpu;
  j["decode_requests_per_s_per_gpu"] = c.decode_requests_per_s_per_gpu;
  j["prefill_gpus_per_decode_gpu"] = c.prefill_gpus_per_decode_gpu;
  j["output_tokens_per_s_per_gpu"] = c.output_tokens_per_s_per_gpu;
  j["usd_per_million_output_tokens"] =
      c.usd_per_million_output_tokens > 0 ? nlohmann::ordered_json(c.usd_per_million_output_tokens) : nullptr;
  j["score"] = c.score;
  return j;
}

}  // namespace

nlohmann::ordered_json disagg_search_json(const std::string& decode_gpu, const DisaggSearchAnswer& a) {
  const DisaggSearchSpec& spec = a.spec;
  const DisaggSearchResult& r = a.result;
  nlohmann::ordered_json j;
  j["decode_gpu"] = decode_gpu;
  j["tp_max"] = spec.tp_max;
  j["objective"] = spec.objective == InferObjective::cost ? "cost" : "throughput";
  j["evaluated"] = r.evaluated;
  j["feasible"] = r.feasible;
  j["meeting_targets"] = r.meeting;
  j["found"] = r.found;
  j["reason"] = r.reason;
  if (r.found) j["best"] = disagg_candidate_json(r.best);
  nlohmann::ordered_json per = nlohmann::ordered_json::array();
  for (const DisaggCandidate& c : r.best_per_prefill_gpu) per.push_back(disagg_candidate_json(c));
  j["best_per_prefill_gpu"] = per;
  return j;
}

std::string disagg_search_text(const std::string& decode_gpu, const DisaggSearchAnswer& a) {
  const DisaggSearchSpec& spec = a.spec;
  const DisaggSearchResult& r = a.result;
  std::string s = fmt::format("\ndisaggregated, decode on {}: {} pool pairs evaluated, {} fit, {} meet the targets\n",
                              decode_gpu, r.evaluated, r.feasible, r.meeting);
  if (!r.found) return s + "no disaggregated plan: " + r.reason + "\n";
  TextTable t({"prefill GPU", "tp", "decode tp", "batch", "TTFT", "TPOT", "prefill:decode GPUs", "tokens/s per GPU",
               "$ per M tokens"},
              {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right});
  for (const DisaggCandidate& c : r.best_per_prefill_gpu) {
    t.add_row({c.prefill_gpu, std::to_string(c.prefill_tp), std::to_string(c.decode_tp),
               fmt_number(c.estimate.decode_running), feature_ms(c.estimate.ttft_s), feature_ms(c.estimate.tpot_s),
               fmt::format("{:.2f} : 1", c.prefill_gpus_per_decode_gpu), fmt_number(c.output_tokens_per_s_per_gpu),
               c.usd_per_million_output_tokens > 0 ? fmt::format("{:.3f}", c.usd_per_million_output_tokens) : "-"});
  }
  s += t.render();
  s += fmt::format("best for {}: prompts on {} (tp {}), decodes on {} (tp {}, batch {}), {:.2f} prefill GPUs per decode "
                   "GPU (pools sized to the same request rate; TTFT without queueing)\n",
                   spec.objective == InferObjective::cost ? "output tokens per dollar" : "output tokens/s per GPU",
                   r.best.prefill_gpu, r.best.prefill_tp, decode_gpu, r.best.decode_tp,
                   fmt_number(r.best.estimate.decode_running), r.best.prefill_gpus_per_decode_gpu);
  return s;
}

namespace {

nlohmann::ordered_json or_null(double v) { return v > 0 ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); }

nlohmann::ordered_json slo_json(const SloAnswer& a) {
  const SloEstimate& e = a.estimate;
  nlohmann::ordered_json j;
  j["ttft_target_s"] = or_null(a.input.ttft_s);
  j["tpot_target_s"] = or_null(a.input.tpot_s);
  j["request_rate"] = or_null(a.input.request_rate);
  j["feasible"] = e.feasible;
  if (!e.feasible) {
    j["reason"] = e.reason;
    return j;
  }
  j["concurrency_per_replica"] = e.concurrency;
  j["ttft_s"] = e.ttft_s;
  j["tpot_s"] = e.tpot_s;
  j["goodput_requests_per_s_per_replica"] = e.goodput_requests_per_s_per_replica;
  j["goodput_requests_per_s"] = e.goodput_requests_per_s;
  j["goodput_output_tokens_per_s"] = e.goodput_output_tokens_per_s;
  j["request_life_s"] = e.request_life_s;
  if (a.input.request_rate > 0) {
    j["queue_model"] = "M/D/c, Allen-Cunneen approximation (Poisson arrivals, c = replicas x concurrency slots)";
    j["rate_served"] = e.rate_served;
    j["replicas"] = e.replicas;
    j["gpus"] = e.gpus;
    j["operating_concurrency_per_replica"] = e.operating_concurrency;
    j["operating_ttft_s"] = e.operating_ttft_s;
    j["utilization"] = e.utilization;
    j["wait_mean_s"] = e.wait_mean_s;
    j["ttft_p50_s"] = e.ttft_p50_s;
    j["ttft_p90_s"] = e.ttft_p90_s;
    j["usd_per_hour"] = or_null(e.usd_per_hour);
    j["usd_per_million_output_tokens"] = or_null(e.usd_per_million_output_tokens);
  }
  return j;
}

std::string slo_text(const SloAnswer& a) {
  const SloEstimate& e = a.estimate;
  std::string s = fmt::format("\nservice-level objectives: TTFT {} · TPOT {}\n",
                              a.input.ttft_s > 0 ? feature_ms(a.input.ttft_s) : std::string("any"),
                              a.input.tpot_s > 0 ? feature_ms(a.input.tpot_s) : std::string("any"));
  if (!e.feasible) return s + "no goodput: " + e.reason + "\n";
  TextTable t({"SLO", "value"}, {TextTable::Align::left, TextTable::Align::right});
  t.add_row({"goodput requests/s (all replicas)", fmt_number(e.goodput_requests_per_s, 2)});
  t.add_row({"at concurrency per replica", fmt_number(e.concurrency)});
  t.add_row({"TTFT · TPOT there", fmt::format("{} · {}", feature_ms(e.ttft_s), feature_ms(e.tpot_s))});
  if (a.input.request_rate > 0 && e.rate_served) {
    t.add_row({fmt::format("GPUs for {} requests/s", fmt_number(a.input.request_rate, 2)),
               fmt::format("{} ({} replicas)", e.gpus, e.replicas)});
    t.add_row({"in flight per replica at that rate", fmt_number(e.operating_concurrency, 1)});
    t.add_row({"utilization", fmt::format("{:.0f}%", 100 * e.utilization)});
    t.add_row({"TTFT p50 · p90 (M/D/c)", fmt::format("{} · {}", feature_ms(e.ttft_p50_s), feature_ms(e.ttft_p90_s))});
    if (e.usd_per_hour > 0) {
      t.add_row({"USD per hour", fmt_number(e.usd_per_hour, 2)});
      t.add_row({"USD per million output tokens", fmt_number(e.usd_per_million_output_tokens, 3)});
    }
  }
  s += t.render();
  if (a.input.request_rate > 0 && !e.rate_served) s += "the request rate could not be served within the targets\n";
  return s;
}

}  // namespace

void add_infer_features_json(nlohmann::ordered_json& j, const InferFeatureAnswer& a) {
  if (a.spec) j["speculative_decoding"] = spec_json(*a.spec);
  if (a.prefix) j["prefix_cache"] = prefix_json(*a.prefix);
  if (a.disagg) j["disaggregated"] = disagg_json(*a.disagg);
  if (a.slo) j["slo"] = slo_json(*a.slo);
}

std::string infer_features_text(const InferFeatureAnswer& a) {
  std::string s;
  if (a.spec) s += spec_text(*a.spec);
  if (a.prefix) s += prefix_text(*a.prefix);
  if (a.disagg) s += disagg_text(*a.disagg);
  if (a.slo) s += slo_text(*a.slo);
  return s;
}

}  // namespace gpuplan
