#include <nlohmann/json.hpp>
#include "report/infer_report.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "core/table.h"
#include "report/answer_words.h"
#include "report/default_system_report.h"
#include "report/infer_features_report.h"
#include "report/sim_report.h"

namespace gpuplan {
namespace {

// Memory in GiB, as train, memory and search show it; below 1 GiB in MiB, so a small KV cache
// per sequence never reads "0.0".
std::string gib_or_mib(double bytes) {
  return bytes < kGiB ? fmt::format("{:.1f} MiB", bytes / kMiB) : fmt::format("{:.1f} GiB", bytes / kGiB);
}
// Fixed point up to a million ms, then 3 significant digits: a queue of 1e297 s once printed 300
// digits (issue 34).
std::string ms(double s) {
  const double v = s * 1e3;
  return std::fabs(v) < 1e6 ? fmt::format("{:.2f} ms", v) : fmt::format("{:.3g} ms", v);
}

std::string mode_name(InferMode m) {
  switch (m) {
    case InferMode::batch: return "batch";
    case InferMode::concurrency: return "concurrency";
    case InferMode::max_throughput: return "max-throughput";
  }
  return "batch";
}

nlohmann::ordered_json step_json(const StepCost& c) {
  nlohmann::ordered_json j;
  j["total_s"] = c.total_s;
  j["linear_s"] = c.linear_s;
  j["linear_memory_s"] = c.linear_mem_s;
  j["linear_compute_s"] = c.linear_compute_s;
  j["attention_s"] = c.attention_s;
  j["kv_memory_s"] = c.kv_mem_s;
  if (c.kv_head_dim_s > 0) {
    // Decode attention at a head dim under 128 (infer/decode_kv_rate.h), inside kv_memory_s.
    j["kv_head_dim"] = {{"time_factor", c.kv_head_dim_factor}, {"added_s", c.kv_head_dim_s}};
  }
  j["elementwise_s"] = c.elementwise_s;
  j["communication_s"] = c.comm_s;
  j["overhead_s"] = c.overhead_s;
  j["output_head_s"] = c.output_head_s;
  // The precision of the attention kernels' math (attention_math_precision, infer/step.h).
  j["attention_precision"] = precision_name(c.attention_precision);
  j["host_s"] = c.host_s;
  j["host_wait_s"] = c.host_wait_s;
  if (c.mla_decode_flops_per_key_layer > 0) {
    // MLA decodes in the absorbed form (infer/mla_decode.h), inside attention_s.
    j["mla_decode"] = {{"form", "absorbed"},
                       {"flops_per_key_layer", c.mla_decode_flops_per_key_layer},
                       {"absorbed_s", c.mla_decode_absorbed_s}};
  }
  if (c.fp8_block_scale_s > 0) {
    // FP8 block-scaled GEMMs below the per-tensor FP8 rate (infer/step.h), inside linear_compute_s.
    j["fp8_block_scale"] = {{"rate_fraction", c.fp8_block_scale_rate_fraction}, {"added_s", c.fp8_block_scale_s}};
  }
  if (c.graph_padded_decodes > 0) {
    // CUDA-graph padding of the pure-decode steps (infer/graph_padding.h), inside total_s.
    j["graph_padding"] = {{"padded_decodes", c.graph_padded_decodes}, {"added_s", c.graph_padding_s}};
  }
  j["weight_bytes_per_gpu"] = c.weight_bytes;
  j["kv_bytes_per_gpu"] = c.kv_bytes;
  j["elementwise_bytes_per_gpu"] = c.elementwise_bytes;
  if (c.adp_busiest_prefill_tokens > c.adp_mean_prefill_tokens) {
    // Attention DP: the rank with the most prompt tokens sets the step (docs/model/attention-dp.md §6).
    j["attention_dp_prefill"] = {{"busiest_rank_tokens", c.adp_busiest_prefill_tokens},
                                 {"mean_rank_tokens", c.adp_mean_prefill_tokens}};
  }
  if (c.moe.tokens_per_expert > 0) {
    const MoeStepTerms& m = c.moe;
    j["moe"] = {{"router_imbalance", m.router_imbalance},
                {"tokens_per_expert", m.tokens_per_expert},
                {"experts_touched", m.experts_touched},
                {"expert_weight_bytes_per_gpu", m.expert_weight_bytes},
                {"expert_weight_s", m.expert_weight_s},
                {"expert_gemm_precision", precision_name(m.expert_gemm_precision)},
                {"expert_compute_s", m.expert_compute_s},
                {"grouped_gemm_efficiency", m.grouped_gemm_efficiency},
                {"expert_padding_s", m.expert_padding_s},
                {"upcast_rate_fraction", m.upcast_rate_fraction},
                {"upcast_s", m.upcast_s},
                {"imbalance_s", m.imbalance_s},
                {"grouped_tile_s", m.grouped_tile_s},
                {"grouped_stream_s", m.grouped_stream_s},
                {"permute_bytes_per_gpu", m.permute_bytes},
                {"permute_s", m.permute_s},
                {"dispatch_combine_s", m.dispatch_combine_s},
                {"routing_kernels_per_layer", m.routing_kernels},
                {"routing_kernels_s", m.routing_kernels_s}};
  }
  return j;
}

void add_calibration(nlohmann::ordered_json& j, const InferSetup& s) {
  add_default_system_json(j, s.ctx.system, *s.ctx.gpu, s.system_defaulted);
  if (!s.calibration.empty()) j["calibration"] = {{"profile", s.calibration}, {"notes", s.calibration_notes}};
}

std::string calibration_lines(const InferSetup& s) {
  std::string out = default_system_text(s.ctx.system, *s.ctx.gpu, s.system_defaulted);
  for (const std::string& note : s.calibration_notes) out += "calibration " + note + "\n";
  return out;
}

}  // namespace

std::string infer_plan_label(const InferPlan& p) {
  if (p.tp > 1 && p.ep == p.tp && p.attention_dp == p.tp) return fmt::format("DEP{}", p.tp);
  if (p.tp > 1 && p.ep == p.tp && p.attention_dp == 1) return fmt::format("TEP{}", p.tp);
  if (p.attention_dp > 1) {
    std::string s = fmt::format("attention DP{}×TP{}", p.attention_dp, p.attention_tp());
    if (p.ep == p.tp) return s + fmt::format(", experts EP{}", p.ep);
    if (p.ep == 1) return s + fmt::format(", experts TP{}", p.tp);
    return s + fmt::format(", experts EP{}×TP{}", p.ep, p.tp / p.ep);
  }
  return {};
}

std::string infer_plan_summary(const InferPlan& p) {
  std::string s = fmt::format("tp {} · pp {}", p.tp, p.pp);
  if (p.ep > 1) s += fmt::format(" · ep {}", p.ep);
  if (p.attention_dp > 1) s += fmt::format(" · attention-dp {}", p.attention_dp);
  if (const std::string label = infer_plan_label(p); !label.empty()) s += " (" + label + ")";
  if (p.replicas > 1) s += fmt::format(" · {} replicas", p.replicas);
  s += fmt::format(" · weights {} · kv {} · in {} · out {} · {}", precision_name(p.weights), precision_name(p.kv),
                   p.input_len, p.output_len, mode_name(p.mode));
  if (p.mode != InferMode::max_throughput) s += fmt::format(" {}", p.load);
  return s;
}

nlohmann::ordered_json infer_plan_json(const InferPlan& p) {
  nlohmann::ordered_json j;
  j["tp"] = p.tp;
  j["pp"] = p.pp;
  j["ep"] = p.ep;
  if (p.attention_dp > 1) {  // absent = 1: attention TP-split over all tp GPUs
    j["attention_dp"] = p.attention_dp;
    j["attention_tp"] = p.attention_tp();
  }
  if (const std::string label = infer_plan_label(p); !label.empty()) j["label"] = label;
  j["replicas"] = p.replicas;
  j["gpus"] = p.gpus();
  j["weights"] = precision_name(p.weights);
  j["kv"] = precision_name(p.kv);
  j["input_len"] = p.input_len;
  j["output_len"] = p.output_len;
  j["mode"] = mode_name(p.mode);
  if (p.mode != InferMode::max_throughput) j["load"] = p.load;
  return j;
}

std::string infer_text(const InferContext& ctx, const InferPlan& plan, const InferEstimate& e) {
  std::string s = fmt::format("{} on {} × {} with {}\n{}\n\n", ctx.model->id, plan.gpus(), ctx.gpu->id,
                              ctx.engine->name, infer_plan_summary(plan));
  const InferMemory& m = e.memory;
  if (m.capacity > 0) {
    TextTable t({"memory per GPU", "bytes"}, {TextTable::Align::left, TextTable::Align::right});
    t.add_row({"weights", gib_or_mib(m.weights)});
    t.add_row({"activations (step workspace)", gib_or_mib(m.activations)});
    t.add_row({"runtime (context, graphs, NCCL)", gib_or_mib(m.runtime)});
    t.add_row({fmt::format("KV cache budget ({} {:.2f})", budget_rule_name(ctx.engine->budget_rule),
                           ctx.engine->memory_fraction),
               gib_or_mib(std::max(0.0, m.kv_budget))});
    t.add_row({"usable capacity", gib_or_mib(m.capacity)});
    s += t.render();
    s += fmt::format("KV per sequence {} · sequences that fit {:.0f}", gib_or_mib(m.kv_per_seq), m.max_seqs);
    if (plan.attention_dp > 1) {
      s += fmt::format(" ({:.0f} on each of the {} attention-DP ranks)", m.max_seqs / plan.attention_dp,
                       plan.attention_dp);
    }
    s += "\n\n";
  }
  if (!e.feasible) {
    s += fmt::format("infeasible: {}\n", e.reason_text());
    return s;
  }
  const ServingPoint& p = e.point;
  TextTable t({"metric", "value"}, {TextTable::Align::left, TextTable::Align::right});
  t.add_row({"TTFT", ms(p.ttft_s)});
  if (p.queue_s > 0) t.add_row({"  of which queueing for KV memory", ms(p.queue_s)});
  if (p.batch_wait_s > 0) t.add_row({"  of which held by batch waiting (steady state)", ms(p.batch_wait_s)});
  t.add_row({"TPOT", ms(p.tpot_s)});
  t.add_row({"output tokens/s (total)", fmt_number(e.output_tokens_per_s)});
  t.add_row({"output tokens/s per GPU", fmt_number(e.output_tokens_per_s_per_gpu)});
  t.add_row({"requests/s", fmt_number(e.requests_per_s, 2)});
  t.add_row({"running sequences", fmt_number(p.running)});
  if (e.usd_per_million_output_tokens > 0) {
    t.add_row({"USD per million output tokens", fmt_number(e.usd_per_million_output_tokens, 3)});
  }
  s += t.render();
  const StepCost& c = p.step;
  s += fmt::format("step {}: weights {} · KV {} · compute {} · elementwise {} · comm {} · overhead {}\n",
                   ms(c.total_s), ms(c.linear_mem_s), ms(c.kv_mem_s), ms(c.linear_compute_s + c.attention_compute_s),
                   ms(c.elementwise_s), ms(c.comm_s), ms(c.overhead_s));
  if (c.output_head_s > 0) s += fmt::format("output head GEMM (inside compute): {}\n", ms(c.output_head_s));
  if (c.kv_head_dim_s > 0) {
    // Decode attention at a head dim under 128 (docs/model/inference.md §4).
    s += fmt::format("decode attention at head dim {} (inside KV): its KV read takes {:.3f}x the bandwidth time, adds {}\n",
                     ctx.model->head_dim, c.kv_head_dim_factor, ms(c.kv_head_dim_s));
  }
  if (plan.kv == Precision::fp8 && c.attention_precision != Precision::fp8 && ctx.gpu->dense(Precision::fp8) > 0) {
    // An FP8 KV cache under 16-bit attention projections: the attention multiplies in 16 bits
    // (docs/model/inference.md §4, "Attention math precision").
    s += fmt::format("attention math in {} over the fp8 KV cache (the attention projections are not FP8/FP4-quantised)\n",
                     precision_name(c.attention_precision));
  }
  if (c.mla_decode_flops_per_key_layer > 0) {
    // MLA decodes as multi-query attention over the latent (docs/model/inference.md §4, "MLA decode").
    s += fmt::format("MLA decode: absorbed form, {} FLOPs per cached key per layer (prompts {}, multi-head) · "
                     "+{} of attention math\n",
                     fmt_number(c.mla_decode_flops_per_key_layer), fmt_number(ctx.attention_flops_per_key_layer),
                     ms(c.mla_decode_absorbed_s));
  }
  if (c.fp8_block_scale_s > 0) {
    // FP8 GEMMs with per-block scales (docs/model/inference.md §4, "FP8 block scales").
    s += fmt::format("FP8 block scales (inside compute): the block-scaled GEMMs at {:.0f}% of the per-tensor FP8 rate · +{}\n",
                     100 * c.fp8_block_scale_rate_fraction, ms(c.fp8_block_scale_s));
  }
  if (c.host_s > 0) {
    // The executor's host work per sequence, overlapped with the GPU (docs/model/inference.md).
    s += fmt::format("host: {} of executor work per step (per sequence, overlapped with the GPU) · the GPU waits {}\n",
                     ms(c.host_s), ms(c.host_wait_s));
  }
  if (c.graph_padded_decodes > 0) {
    // CUDA-graph padding of the pure-decode steps (docs/model/inference.md §4).
    s += fmt::format("CUDA graphs: pure-decode steps padded to {:.0f} sequences (dummy rows) · adds {} to the mean step\n",
                     c.graph_padded_decodes, ms(c.graph_padding_s));
  }
  if (c.adp_busiest_prefill_tokens > c.adp_mean_prefill_tokens) {
    s += fmt::format("attention DP: the busiest rank prefills {:.0f} prompt tokens per step (mean over the ranks {:.0f})\n",
                     c.adp_busiest_prefill_tokens, c.adp_mean_prefill_tokens);
  }
  if (c.moe.tokens_per_expert > 0) {
    // The MoE terms inside the step above (docs/model/moe-serving.md).
    const MoeStepTerms& moe = c.moe;
    s += fmt::format("MoE: {:.1f} tokens per expert (router imbalance {:.2f}) · experts read {:.0f}% ({}, {}) · "
                     "expert GEMMs {} at {}{} · grouped GEMM {:.0f}% of dense (padding {}) · imbalance {} · permutes {} · "
                     "dispatch/combine {}{}\n",
                     moe.tokens_per_expert, moe.router_imbalance, 100 * moe.experts_touched, gib_or_mib(moe.expert_weight_bytes),
                     ms(moe.expert_weight_s), ms(moe.expert_compute_s), precision_name(moe.expert_gemm_precision),
                     moe.upcast_s > 0 ? fmt::format(" + fp4 weights widened in the kernel {} (it runs at {:.0f}% of the {} rate)",
                                                    ms(moe.upcast_s), 100 * moe.upcast_rate_fraction,
                                                    precision_name(moe.expert_gemm_precision))
                                      : std::string(),
                     100 * moe.grouped_gemm_efficiency, ms(moe.expert_padding_s), ms(moe.imbalance_s), ms(moe.permute_s),
                     ms(moe.dispatch_combine_s),
                     moe.routing_kernels > 0
                         ? fmt::format(" · routing kernels {} ({:.0f} per layer)", ms(moe.routing_kernels_s), moe.routing_kernels)
                         : std::string());
    if (moe.grouped_tile_s > 0 || moe.grouped_stream_s > 0) {
      s += fmt::format("grouped expert GEMMs as measured: tile waves {} · expert weights at the SMs' pull +{}\n",
                       ms(moe.grouped_tile_s), ms(moe.grouped_stream_s));
    }
  }
  s += fmt::format("bottleneck: {} · batch set by {} · decode turns compute-bound near batch {:.0f}\n", e.bottleneck_text(),
                   e.batch_limit, e.ridge_batch);
  if (e.usd_per_million_output_tokens > 0) s += fmt::format("price: {}\n", ctx.price_source);
  return s;
}

nlohmann::ordered_json infer_json(const InferContext& ctx, const InferPlan& plan, const InferEstimate& e) {
  nlohmann::ordered_json j;
  j["model"] = ctx.model->id;
  j["gpu"] = ctx.gpu->id;
  j["engine"] = ctx.engine->id;
  j["system"] = ctx.system ? nlohmann::ordered_json(ctx.system->id) : nlohmann::ordered_json(nullptr);
  j["plan"] = infer_plan_json(plan);
  j["feasible"] = e.feasible;
  if (!e.feasible) j["reason"] = e.reason_text();
  nlohmann::ordered_json mem;
  mem["capacity_bytes"] = e.memory.capacity;
  mem["weights_bytes"] = e.memory.weights;
  mem["activations_bytes"] = e.memory.activations;
  mem["runtime_bytes"] = e.memory.runtime;
  // Never negative (issue 34): when the weights and the rest leave nothing, the budget is 0 and
  // the shortfall is its own field.
  mem["kv_budget_bytes"] = std::max(0.0, e.memory.kv_budget);
  if (e.memory.kv_budget < 0) mem["kv_short_by_bytes"] = -e.memory.kv_budget;
  mem["kv_per_seq_bytes"] = e.memory.kv_per_seq;
  mem["max_seqs"] = e.memory.max_seqs;
  mem["budget_rule"] = budget_rule_name(ctx.engine->budget_rule);
  mem["memory_fraction"] = ctx.engine->memory_fraction;
  j["memory_per_gpu"] = mem;
  if (e.feasible) {
    j["ttft_s"] = e.point.ttft_s;
    j["queue_s"] = e.point.queue_s;
    j["steady_ttft_s"] = e.point.steady_ttft_s;
    j["first_wave_ttft_s"] = e.point.first_wave_ttft_s;
    if (e.point.batch_wait_s > 0) j["batch_wait_s"] = e.point.batch_wait_s;  // engines with batch waiting only
    j["tpot_s"] = e.point.tpot_s;
    j["output_tokens_per_s"] = e.output_tokens_per_s;
    j["output_tokens_per_s_per_gpu"] = e.output_tokens_per_s_per_gpu;
    j["requests_per_s"] = e.requests_per_s;
    j["running"] = e.point.running;
    j["bottleneck"] = e.bottleneck_text();
    j["batch_limit"] = e.batch_limit;
    j["ridge_batch"] = e.ridge_batch;
    j["usd_per_million_output_tokens"] =
        e.usd_per_million_output_tokens > 0 ? nlohmann::ordered_json(e.usd_per_million_output_tokens) : nullptr;
    j["price_source"] = ctx.price_source;
    j["decode_step"] = step_json(e.point.step);
    j["prefill_step"] = step_json(e.point.prefill);
  } else {
    j["bottleneck"] = e.bottleneck_text();
  }
  return j;
}

std::string infer_search_text(const InferContext& ctx, const InferSearchSpec& spec, const InferSearchResult& r) {
  std::string out = fmt::format("infer-search {} on {} ({}), prompt {} + output {} tokens: {} plans evaluated, {} fit, "
                                "{} meet the targets\n",
                                ctx.model->id, ctx.gpu->id, ctx.engine->name, spec.input_len, spec.output_len,
                                r.evaluated, r.feasible, r.meeting);
  if (!r.found) return out + "no plan: " + r.reason + "\n";
  out += fmt::format("best for {}{}: concurrency {} per replica\n",
                     spec.objective == InferObjective::cost ? "output tokens per dollar" : "output tokens/s per GPU",
                     spec.rate_rps > 0 ? fmt::format(" serving {} requests/s with the fewest GPUs", spec.rate_rps) : "",
                     r.plan.load);
  out += infer_text(ctx, r.plan, r.estimate);
  if (r.simulation) {
    out += fmt::format("\ntargets met at the simulated p{:g} ({} plans simulated, best first; one replica below):",
                       spec.slo_percentile, r.simulated);
    out += simulation_text(*r.simulation);
  }
  return out;
}

nlohmann::ordered_json infer_search_json(const InferContext& ctx, const InferSearchSpec& spec,
                                         const InferSearchResult& r) {
  nlohmann::ordered_json j;
  j["model"] = ctx.model->id;
  j["gpu"] = ctx.gpu->id;
  j["engine"] = ctx.engine->id;
  j["objective"] = spec.objective == InferObjective::cost ? "cost" : "throughput";
  j["gpus_max"] = spec.gpus_max;
  j["ttft_target_s"] = spec.ttft_s;
  j["tpot_target_s"] = spec.tpot_s;
  j["rate_rps"] = spec.rate_rps;
  j["evaluated"] = r.evaluated;
  j["feasible"] = r.feasible;
  j["meeting_targets"] = r.meeting;
  j["slo_percentile"] = spec.slo_percentile > 0 ? nlohmann::ordered_json(spec.slo_percentile) : nullptr;
  j["simulated"] = r.simulated;
  j["found"] = r.found;
  j["reason"] = r.reason;
  j["score"] = r.score;
  if (r.found) j["best"] = infer_json(ctx, r.plan, r.estimate);
  if (r.simulation) j["simulation"] = simulation_json(*r.simulation);
  return j;
}

nlohmann::ordered_json to_json(const InferAnswer& a) {
  nlohmann::ordered_json j = infer_json(a.setup.ctx, a.plan, a.estimate);
  if (!a.notes.empty()) j["notes"] = a.notes;
  add_infer_features_json(j, a.features);
  if (a.simulation) j["simulation"] = simulation_json(*a.simulation);
  add_calibration(j, a.setup);
  return j;
}

std::string to_text(const InferAnswer& a) {
  std::string notes;
  for (const std::string& n : a.notes) notes += "note: " + n + "\n";
  return infer_text(a.setup.ctx, a.plan, a.estimate) + notes + infer_features_text(a.features) +
         (a.simulation ? simulation_text(*a.simulation) : std::string()) + calibration_lines(a.setup);
}

nlohmann::ordered_json to_json(const InferSearchAnswer& a) {
  nlohmann::ordered_json j = infer_search_json(a.setup.ctx, a.spec, a.result);
  if (a.disagg) j["disaggregated"] = disagg_search_json(a.setup.ctx.gpu->id, *a.disagg);
  add_calibration(j, a.setup);
  return j;
}

std::string to_text(const InferSearchAnswer& a) {
  // The answer in words first (report/answer_words.h), then the search's figures.
  return answer_words(a) + "\n" + infer_search_text(a.setup.ctx, a.spec, a.result) +
         (a.disagg ? disagg_search_text(a.setup.ctx.gpu->id, *a.disagg) : std::string()) +
         calibration_lines(a.setup);
}

}  // namespace gpuplan
