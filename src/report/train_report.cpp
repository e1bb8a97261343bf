#include "report/train_report.h"

#include <array>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/units.h"
#include "core/table.h"
#include "plan/plan_json.h"
#include "report/calibration_report.h"
#include "report/default_system_report.h"

namespace gpuplan {
namespace {

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / kGiB); }
std::string secs(double s) { return format_seconds(s); }
std::string pct(double f) { return fmt::format("{:.1f}%", 100 * f); }

}  // namespace

std::string plan_summary(const Plan& p, const ModelSpec& m) {
  std::string s = fmt::format("tp {}", p.tp);
  if (p.sp && p.tp > 1) s += " (sp)";
  s += fmt::format(" · pp {}", p.pp);
  if (p.vp > 1) s += fmt::format(" (vp {})", p.vp);
  if (p.pp_embedding_head_slots) s += " (embedding/head as layers)";
  // An explicit layout, as the plan's JSON writes it (Megatron-Core's grammar).
  if (!p.pp_layout_layers.empty()) s += fmt::format(" (layout {})", plan_json(p).value("pp_layout", ""));
  if (p.mtp_layers > 0) s += fmt::format(" · mtp {}", p.mtp_layers);
  s += fmt::format(" · dp {}", p.dp);
  if (p.cp > 1) s += fmt::format(" · cp {}", p.cp);
  if (p.ep > 1) s += fmt::format(" · ep {}", p.ep);
  if (p.moe_overlap != MoeOverlap::none) s += fmt::format(" · moe overlap {}", moe_overlap_name(p.moe_overlap));
  if (p.moe_dispatcher != MoeDispatcher::alltoall) s += fmt::format(" · moe dispatcher {}", moe_dispatcher_name(p.moe_dispatcher));
  if (p.moe_imbalance > 1) s += fmt::format(" · moe imbalance {:g}", p.moe_imbalance);
  if (p.zero > 0) s += p.zero == 3 ? " · fsdp" : fmt::format(" · zero {}", p.zero);
  if (p.dp_shard > 0 && p.dp_shard < p.dp) s += fmt::format(" (shard {})", p.dp_shard);
  if (p.optimizer_state_bits != 32) s += fmt::format(" · {}-bit Adam states", p.optimizer_state_bits);
  if (p.offload_optimizer) s += " · optimizer offload";
  if (p.offload_activation_layers > 0) s += fmt::format(" · activation offload {} layers", p.offload_activation_layers);
  if (p.eager_elementwise) s += " · eager element-wise";
  s += fmt::format(" · mb {} · gb {} · seq {} · {} · {}", p.micro_batch, p.global_batch_seqs(), plan_seq_len(p, m),
                   recompute_name(p.recompute), precision_name(p.precision));
  if (p.scaling != default_scaling_recipe(p.precision) || p.precision == Precision::fp4) {
    s += fmt::format(" ({}{})", scaling_recipe_name(p.scaling),
                     p.precision == Precision::fp4 && !p.nvfp4_rht ? ", no Hadamard transforms" : "");
  }
  if (p.recompute_modules != 0) s += fmt::format(" · recompute modules {}", recompute_modules_name(p.recompute_modules));
  if (p.cuda_graph_scope != 0) s += fmt::format(" · CUDA graphs {}", cuda_graph_scope_name(p.cuda_graph_scope));
  if (p.low_precision_act_cache) s += " · fp8 activation cache";
  return s;
}

static nlohmann::ordered_json memory_breakdown_json(const MemoryBreakdown& m) {
  nlohmann::ordered_json j;
  j["weights_bytes"] = m.weights_bytes;
  j["gradients_bytes"] = m.gradients_bytes;
  j["optimizer_bytes"] = m.optimizer_bytes;
  j["activations_bytes"] = m.activations_bytes;
  j["head_buffers_bytes"] = m.head_buffers_bytes;
  j["gathered_weights_bytes"] = m.gathered_weights_bytes;
  j["weight_copies_bytes"] = m.weight_copies_bytes;
  j["eager_temporaries_bytes"] = m.eager_temporaries_bytes;
  j["optimizer_temp_bytes"] = m.optimizer_temp_bytes;
  j["runtime_bytes"] = m.runtime_bytes;
  j["fragmentation_bytes"] = m.fragmentation_bytes;
  j["total_bytes"] = m.total_bytes;
  j["peak"] = memory_peak_name(m.peak);
  // The terms that make up total_bytes (the others are alive at another point of the step).
  const MemoryTermsAtPeak& at = m.terms_at_peak;
  nlohmann::ordered_json terms = nlohmann::ordered_json::array();
  for (const char* t : {"weights_bytes", "optimizer_bytes", "gathered_weights_bytes", "runtime_bytes", "fragmentation_bytes"}) {
    terms.push_back(t);
  }
  if (at.gradients) terms.push_back("gradients_bytes");
  if (at.activations) {
    for (const char* t : {"activations_bytes", "head_buffers_bytes", "weight_copies_bytes", "eager_temporaries_bytes"}) {
      terms.push_back(t);
    }
  }
  if (at.optimizer_temp) terms.push_back("optimizer_temp_bytes");
  j["peak_terms"] = terms;
  j["backward_start_bytes"] = m.backward_start_bytes;
  j["optimizer_step_bytes"] = m.optimizer_step_bytes;
  if (m.host_bytes > 0) j["host_bytes"] = m.host_bytes;  // optimizer offload only
  return j;
}

// Optimizer offload: the host memory each GPU's share of the optimizer needs, and whether the
// catalog can check it.
static std::string host_memory_line(const TrainContext& ctx, const Plan& p, const Estimate& e) {
  if (!p.offload_optimizer) return "";
  const std::string need =
      fmt::format("host memory per GPU {} (offloaded optimizer states + gradient copy)", gib(e.host_memory_bytes));
  if (e.host_memory_capacity_bytes <= 0) {
    return need + fmt::format(": not checked, the catalog has no host memory for {}\n",
                              ctx.system ? ctx.system->id : "this GPU");
  }
  return need + fmt::format(" of its {} share of the host: {}\n", gib(e.host_memory_capacity_bytes),
                            e.host_memory_bytes <= e.host_memory_capacity_bytes ? "fits" : "DOES NOT FIT");
}

// "fits", "tight" (the margin is inside the model's own memory error) or "out_of_memory".
static const char* memory_verdict(const Estimate& e) {
  if (!e.fits()) return "out_of_memory";
  return e.memory_tight ? "tight" : "fits";
}

static std::string memory_verdict_text(const Estimate& e) {
  if (!e.fits()) return fmt::format("DOES NOT FIT ({})", e.reason_text());
  if (e.memory_tight) {
    return fmt::format("TIGHT: {} margin, inside the model's ±{} error on peak memory for this framework",
                       gib(e.memory_margin_bytes), pct(e.memory_error_fraction));
  }
  return e.memory_error_fraction > 0
             ? fmt::format("fits, {} margin (the model's error on peak memory: ±{})", gib(e.memory_margin_bytes),
                           pct(e.memory_error_fraction))
             : fmt::format("fits, {} margin", gib(e.memory_margin_bytes));
}

static void memory_verdict_json(const Estimate& e, nlohmann::ordered_json& j) {
  j["memory_verdict"] = memory_verdict(e);
  j["memory_margin_bytes"] = e.memory_margin_bytes;
  j["memory_error_fraction"] = e.memory_error_fraction;
  j["driver_reserved_bytes"] = e.driver_reserved_bytes;
}

static std::string header(const TrainContext& ctx, const Plan& p) {
  return fmt::format("{} on {} × {}{}\nplan: {}{}\n", ctx.model->id, p.gpus(), ctx.gpu->id,
                     ctx.system ? fmt::format(" ({}{})", ctx.system->id, ctx.fabric ? ", " + ctx.fabric->id : "") : "",
                     plan_summary(p, *ctx.model), ctx.framework ? " · " + ctx.framework->id : "");
}

std::string train_text(const TrainContext& ctx, const Plan& p, const Estimate& e,
                       const std::vector<PlacedGroup>& placement) {
  std::string out = header(ctx, p);
  if (!e.valid()) return out + fmt::format("infeasible: {}\n", e.reason_text());
  out += fmt::format("step time      {}   ({} micro-batches of {} sequences per replica)\n", secs(e.step_time_s),
                     e.micro_batches, p.micro_batch);
  out += fmt::format("throughput     {} tokens/s, {} per GPU\n", fmt_number(e.tokens_per_s), fmt_number(e.tokens_per_s_per_gpu));
  out += fmt::format("model FLOP/s   {} TFLOP/s per GPU · MFU {} · HFU {} (of the {} dense peak)\n",
                     fmt_number(e.tflops_per_gpu, 1), pct(e.mfu), pct(e.hfu), precision_name(p.precision));
  if (e.tensor_clock_factor != 1) {
    out += fmt::format(
        "tensor clock   ×{:.3f} of the {} family's reference part ({:g} W power limit; every tensor rate)\n",
        e.tensor_clock_factor, ctx.efficiency ? ctx.efficiency->id : "", ctx.gpu->tdp_w);
  }
  // A precision whose GEMMs draw more power per clock on this part than on the reference part
  // runs them at a lower clock (cost/roofline.h power_clock_factor).
  if (e.gemm_clock_factor != e.tensor_clock_factor) {
    out += fmt::format("GEMM clock     ×{:.3f} in {} (its power per clock at the power limit; every {} GEMM rate)\n",
                       e.gemm_clock_factor, precision_name(p.precision), precision_name(p.precision));
  }
  out += fmt::format("memory per GPU {} of {} usable: {}\n", gib(e.memory.total_bytes), gib(e.memory_capacity_bytes),
                     memory_verdict_text(e));
  out += host_memory_line(ctx, p, e);
  TextTable t({"where the step goes", "total", "exposed", "share"},
              {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right});
  const TrainBreakdown& b = e.breakdown;
  auto row = [&](const std::string& name, double total, double exposed) {
    if (total <= 0 && exposed <= 0) return;
    t.add_row({name, secs(total), secs(exposed), pct(exposed / e.step_time_s)});
  };
  row("compute: forward", b.forward_s, b.forward_s);
  row(b.recompute_s > 0 ? fmt::format("compute: backward (recompute {})", secs(b.recompute_s)) : "compute: backward",
      b.backward_s, b.backward_s);
  // DeepSeek-V3's multi-token-prediction block on the slowest rank (in forward and backward).
  if (p.mtp_layers > 0) row("  of which MTP block (eh_proj, its layer, second head and loss)", b.mtp_s, b.mtp_s);
  row("pipeline bubble", b.bubble_s, b.bubble_s);
  row("TP communication", b.tp.total_s, b.tp.exposed_s);
  row("CP communication", b.cp.total_s, b.cp.exposed_s);
  row("EP communication", b.ep.total_s, b.ep.exposed_s);
  row("PP communication", b.pp.total_s, b.pp.exposed_s);
  row(p.zero >= 3 ? "DP communication (FSDP gathers + reductions)" : "DP communication (gradients)", b.dp.total_s,
      b.dp.exposed_s);
  // The part of it nothing hides: the edge bucket group (plan/evaluate.h, BucketWalk).
  row("  of which edge bucket (last reduce, first gather)", b.dp_edge.total_s, b.dp_edge.exposed_s);
  if (p.offload_activation_layers > 0) {
    row(fmt::format("activation offload ({} layers per rank, to host and back)", p.offload_activation_layers),
        b.offload_activations.total_s, b.offload_activations.exposed_s);
  }
  const std::string states =
      p.optimizer_state_bits != 32 ? fmt::format(", {}-bit Adam states", p.optimizer_state_bits) : "";
  if (p.offload_optimizer) {
    // ZeRO-Offload: gradients down under the last backward, the CPU step, weights back up.
    row("offload: gradients to host (PCIe, under the last backward)", b.offload_grads.total_s,
        b.offload_grads.exposed_s);
    row(fmt::format("optimizer step on the CPU (host DRAM{})", states), b.optimizer_s, b.optimizer_s);
    row("offload: updated weights to GPU (PCIe)", b.offload_weights.total_s, b.offload_weights.exposed_s);
  } else {
    row(states.empty() ? "optimizer step" : fmt::format("optimizer step ({})", states.substr(2)), b.optimizer_s,
        b.optimizer_s);
  }
  out += t.render();
  out += fmt::format("bottleneck: {}\n", bottleneck_name(e.bottleneck));
  std::vector<std::string> placed;
  for (const PlacedGroup& g : placement) {
    if (g.group.size <= 1) continue;
    placed.push_back(g.group.crosses_domains()
                         ? fmt::format("{} {} across {} domains ({} per domain, up to {})", g.name, g.group.size,
                                       g.group.domains, g.group.gpus_per_domain, g.level)
                         : fmt::format("{} {} inside one domain", g.name, g.group.size));
  }
  if (!placed.empty()) out += "placement: " + fmt::format("{}", fmt::join(placed, "; ")) + "\n";
  return out;
}

nlohmann::ordered_json train_json(const TrainContext& ctx, const Plan& p, const Estimate& e,
                                  const std::vector<PlacedGroup>& placement_groups) {
  nlohmann::ordered_json j;
  j["model"] = ctx.model->id;
  j["gpu"] = ctx.gpu->id;
  j["system"] = ctx.system ? ctx.system->id : "";
  j["fabric"] = ctx.fabric ? ctx.fabric->id : "";
  j["gpus"] = p.gpus();
  j["plan"] = plan_json(p, *ctx.model, ctx.framework ? std::string_view(ctx.framework->id) : std::string_view());
  j["feasible"] = e.feasible();
  j["reason"] = e.reason_text();
  if (!e.valid()) return j;
  j["step_time_s"] = e.step_time_s;
  j["tokens_per_step"] = e.tokens_per_step;
  j["tokens_per_s"] = e.tokens_per_s;
  j["tokens_per_s_per_gpu"] = e.tokens_per_s_per_gpu;
  j["tflops_per_gpu"] = e.tflops_per_gpu;
  j["mfu"] = e.mfu;
  j["hfu"] = e.hfu;
  j["model_flops_per_step"] = e.model_flops_per_step;
  j["hardware_flops_per_step"] = e.hardware_flops_per_step;
  j["micro_batches"] = e.micro_batches;
  j["bubble_fraction"] = e.bubble_fraction;
  j["tensor_clock_factor"] = e.tensor_clock_factor;
  // Only where it differs, so that answers without it read as before.
  if (e.gemm_clock_factor != e.tensor_clock_factor) j["gemm_clock_factor"] = e.gemm_clock_factor;
  j["memory_per_gpu_bytes"] = e.memory.total_bytes;
  j["memory_capacity_bytes"] = e.memory_capacity_bytes;
  j["fits"] = e.fits();
  memory_verdict_json(e, j);
  j["memory"] = memory_breakdown_json(e.memory);
  const TrainBreakdown& b = e.breakdown;
  nlohmann::ordered_json br;
  br["forward_s"] = b.forward_s;
  br["backward_s"] = b.backward_s;
  br["recompute_s"] = b.recompute_s;
  br["bubble_s"] = b.bubble_s;
  br["optimizer_s"] = b.optimizer_s;
  auto comm = [&](const char* name, const CommCost& c) {
    br[fmt::format("{}_comm_s", name)] = c.total_s;
    br[fmt::format("{}_comm_exposed_s", name)] = c.exposed_s;
  };
  comm("tp", b.tp);
  comm("cp", b.cp);
  comm("ep", b.ep);
  comm("pp", b.pp);
  comm("dp", b.dp);
  comm("dp_edge", b.dp_edge);  // of dp: the edge bucket group, exposed whole
  if (p.mtp_layers > 0) br["mtp_s"] = b.mtp_s;  // of forward_s + backward_s: the MTP block
  if (p.offload_activation_layers > 0) {
    br["offload_activations_s"] = b.offload_activations.total_s;
    br["offload_activations_exposed_s"] = b.offload_activations.exposed_s;
  }
  if (p.offload_optimizer) {
    // optimizer_s is the CPU's step; the transfers over the host link, and what of them shows.
    br["optimizer_on_host"] = true;
    br["offload_grads_s"] = b.offload_grads.total_s;
    br["offload_grads_exposed_s"] = b.offload_grads.exposed_s;
    br["offload_weights_s"] = b.offload_weights.total_s;
    br["offload_weights_exposed_s"] = b.offload_weights.exposed_s;
    j["host_memory_per_gpu_bytes"] = e.host_memory_bytes;
    j["host_memory_capacity_bytes"] = e.host_memory_capacity_bytes;  // 0 = not in the catalog, unchecked
  }
  j["breakdown"] = br;
  j["bottleneck"] = bottleneck_name(e.bottleneck);
  nlohmann::ordered_json placement = nlohmann::ordered_json::array();
  for (const PlacedGroup& g : placement_groups) {
    nlohmann::ordered_json row;
    row["group"] = g.name;
    row["size"] = g.group.size;
    row["gpus_per_domain"] = g.group.gpus_per_domain;
    row["domains"] = g.group.domains;
    row["level"] = g.level;
    placement.push_back(row);
  }
  j["placement"] = placement;
  return j;
}

std::string memory_text(const TrainContext& ctx, const Plan& p, const Estimate& e, const StateBytes& state) {
  std::string out = header(ctx, p);
  if (!e.valid()) return out + fmt::format("infeasible: {}\n", e.reason_text());
  const MemoryBreakdown& m = e.memory;
  TextTable t({fmt::format("memory per GPU (pipeline rank {})", e.memory_stage), "GiB", "share"},
              {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right});
  auto row = [&](const std::string& name, double bytes) {
    t.add_row({name, fmt::format("{:.2f}", bytes / kGiB), pct(bytes / m.total_bytes)});
  };
  const char* shard = p.zero >= 3 ? "sharded" : "replicated";
  const bool fp32_model = ctx.framework && ctx.framework->memory.fp32_model;
  row(fmt::format("weights ({}, {} B/param{})", shard, state.weight, fp32_model ? ", fp32: the master copy" : ""),
      m.weights_bytes);
  const MemoryTermsAtPeak& at = m.terms_at_peak;
  const std::string moments =
      p.optimizer_state_bits == 32 ? "Adam m, v" : fmt::format("{}-bit Adam m, v", p.optimizer_state_bits);
  row(fmt::format("optimizer: {}{} ({:g} B/param{}{})", fp32_model ? "" : "fp32 master + ", moments, state.optimizer,
                  p.zero >= 1 ? ", sharded" : "", p.offload_optimizer ? ", in host memory" : ""),
      m.optimizer_bytes);
  const bool at_step = !at.activations;
  const bool freed = m.grads_freed_between_steps;
  // Terms not alive at the peak are listed in brackets and left out of the total.
  auto phase_row = [&](const std::string& name, double bytes, bool alive) {
    if (alive) {
      row(name, bytes);
    } else {
      t.add_row({"(" + name + ", not at the peak)", fmt::format("{:.2f}", bytes / kGiB), "-"});
    }
  };
  phase_row(fmt::format("gradients ({} B/param{})", state.grad, p.zero >= 2 ? ", sharded" : ""), m.gradients_bytes,
            at.gradients);
  phase_row(fmt::format("activations ({} recompute, micro-batches in flight)", recompute_name(p.recompute)),
            m.activations_bytes, !at_step);
  if (m.eager_temporaries_bytes > 0) {
    phase_row("eager element-wise temporaries autograd keeps (fp32 norm internals, RoPE and SwiGLU copies)",
              m.eager_temporaries_bytes, !at_step);
  }
  if (m.head_buffers_bytes > 0) {
    const FrameworkMemory fm = ctx.framework ? ctx.framework->memory : FrameworkMemory{};
    const double per_logit = p.eager_elementwise ? fm.loss_bytes_per_logit_eager : fm.loss_bytes_per_logit_fused;
    phase_row(per_logit > 0 ? fmt::format("loss: logits, their fp32 upcast, log-softmax and gradient ({:g} B per logit)",
                                          per_logit)
                            : std::string("loss: logits and an fp32 softmax buffer"),
              m.head_buffers_bytes, !at_step);
  }
  if (m.weight_copies_bytes > 0) phase_row("autocast's bf16 copies of the fp32 matmul weights", m.weight_copies_bytes, !at_step);
  if (m.gathered_weights_bytes > 0) row("gathered weights (ZeRO-3/FSDP prefetch)", m.gathered_weights_bytes);
  if (m.optimizer_temp_bytes > 0) phase_row("optimizer step temporaries", m.optimizer_temp_bytes, at_step);
  row(p.gpus() > 1 ? "runtime: CUDA context + NCCL buffers" : "runtime: CUDA context (one GPU: no NCCL)", m.runtime_bytes);
  row(fmt::format("allocator reserve: cached, unused blocks ({} of the tensors)",
                  pct(m.fragmentation_bytes / std::max(1.0, std::max(m.backward_start_bytes, m.optimizer_step_bytes)))),
      m.fragmentation_bytes);
  t.add_row({"total (peak: " + std::string(memory_peak_name(m.peak)) + ")", fmt::format("{:.2f}", m.total_bytes / kGiB),
             "100.0%"});
  out += t.render();
  if (freed) {
    out += fmt::format("gradients are set to None between steps: the peak is the larger of the backward's start ({}) "
                       "and the optimizer step ({}), before the allocator's reserve and the runtime\n",
                       gib(m.backward_start_bytes), gib(m.optimizer_step_bytes));
  }
  if (e.driver_reserved_bytes > 0) {
    out += fmt::format("{} of {} is kept by the driver (cudaMemGetInfo's total is {} less than nvidia-smi's)\n",
                       gib(e.driver_reserved_bytes), ctx.gpu->id, gib(e.driver_reserved_bytes));
  }
  out += fmt::format("{} usable on {}: {}\n", gib(e.memory_capacity_bytes), ctx.gpu->id, memory_verdict_text(e));
  out += host_memory_line(ctx, p, e);
  return out;
}

nlohmann::ordered_json memory_json(const TrainContext& ctx, const Plan& p, const Estimate& e) {
  nlohmann::ordered_json j;
  j["model"] = ctx.model->id;
  j["gpu"] = ctx.gpu->id;
  j["gpus"] = p.gpus();
  j["plan"] = plan_json(p, *ctx.model, ctx.framework ? std::string_view(ctx.framework->id) : std::string_view());
  j["valid"] = e.valid();
  j["reason"] = e.reason_text();
  if (!e.valid()) return j;
  j["memory_per_gpu_bytes"] = e.memory.total_bytes;
  j["memory_capacity_bytes"] = e.memory_capacity_bytes;
  j["fits"] = e.fits();
  memory_verdict_json(e, j);
  j["pipeline_rank"] = e.memory_stage;
  j["memory"] = memory_breakdown_json(e.memory);
  if (p.offload_optimizer) {
    j["host_memory_per_gpu_bytes"] = e.host_memory_bytes;
    j["host_memory_capacity_bytes"] = e.host_memory_capacity_bytes;  // 0 = not in the catalog, unchecked
  }
  return j;
}

std::string rule_of_thumb_text(const RuleOfThumbAnswer& a) {
  const Gpu& gpu = *a.gpu;
  const StateBytes& s = a.state;
  const double per_param = a.bytes_per_param;
  TextTable t({"model", "seed: weights", "seed: to train", "seed: GPUs", fmt::format("states at {:.0f} B/param", per_param),
               fmt::format("{} needed for states alone", gpu.id)},
              {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::left,
               TextTable::Align::right, TextTable::Align::right});
  for (const RuleOfThumbRow& r : a.rows) {
    t.add_row({r.size, r.seed_weights, r.seed_training, r.seed_gpus, format_bytes(r.states_bytes),
               fmt_number(r.gpus_for_states)});
  }
  std::string out = "The seed documents' rule of thumb (shared/seeds/000, \"GPU Requirements by Model Size\") counts\n"
                    "8 bytes per parameter: 16-bit weights, gradients and two Adam moments.\n";
  out += t.render();
  out += fmt::format(
      "Why the full accounting differs: mixed-precision Adam keeps {:.0f} bytes per parameter before any\n"
      "activation ({} B 16-bit weights + {} B gradients + {} B fp32 master weights and moments; Rajbhandari\n"
      "et al. 2020), not 8. A 7B model needs {} for its states alone, more than one {} holds\n"
      "({} usable), so \"7B trains on one 80 GB H100\" needs ZeRO/FSDP sharding over several GPUs, or\n"
      "optimizer offload, plus room for activations, CUDA context and NCCL buffers. See `gpuplan memory`.\n",
      per_param, s.weight, s.grad, s.optimizer, format_bytes(a.rows.front().states_bytes), gpu.id,
      gib(gpu.usable_memory_bytes));
  return out;
}

nlohmann::ordered_json rule_of_thumb_json(const RuleOfThumbAnswer& a) {
  nlohmann::ordered_json j;
  j["source"] = "shared/seeds/000_1cdbbc23618e7cc1.txt, GPU Requirements by Model Size";
  j["seed_bytes_per_param"] = 8;
  j["bytes_per_param"] = a.bytes_per_param;
  j["gpu"] = a.gpu->id;
  j["rows"] = nlohmann::ordered_json::array();
  for (const RuleOfThumbRow& r : a.rows) {
    nlohmann::ordered_json row;
    row["model"] = r.size;
    row["params"] = r.params;
    row["seed_weights"] = r.seed_weights;
    row["seed_training"] = r.seed_training;
    row["seed_gpus"] = r.seed_gpus;
    row["weights_bytes"] = r.weights_bytes;
    row["seed_training_bytes"] = r.seed_training_bytes;
    row["states_bytes"] = r.states_bytes;
    row["gpus_for_states"] = r.gpus_for_states;
    j["rows"].push_back(row);
  }
  return j;
}

namespace {

// "Why not": the nearest plans on the same GPUs that run (plan/nearest_plans.h).
std::string nearest_text(const TrainAnswer& a) {
  if (a.estimate.feasible()) return "";
  if (a.nearest.empty()) {
    return "nearest plans that run: none one change away on these GPUs (gpuplan search finds the fewest GPUs that "
           "fit)\n";
  }
  std::string out = "nearest plans that run (one change each, fastest first):\n";
  for (const NearbyPlan& n : a.nearest) {
    out += fmt::format("  {:<24} step {}  memory {}\n", n.change, format_seconds(n.step_time_s),
                       format_bytes(n.memory_bytes, true));
  }
  return out;
}

// The defaults the answer rests on (TrainSetup::assumptions), one line each.
// Materialised attention (workload/ops.cpp materialized_attention): its four kernels of the
// first layer, forward, one micro-batch, from the op roofline (evaluate()'s own op_time); empty
// for a fused attention kernel.
std::vector<const OpRooflinePoint*> materialized_attention_ops(const TrainAnswer& a) {
  std::vector<const OpRooflinePoint*> out;
  const Framework* fw = a.ctx().framework;
  if (fw == nullptr || !fw->attention_materialized) return out;
  for (const OpRooflinePoint& op : a.roofline.ops) {
    if (op.name == "attn_scores" || op.name == "attn_softmax" || op.name == "attn_dropout" ||
        op.name == "attn_context")
      out.push_back(&op);
  }
  return out;
}

std::string materialized_attention_text(const TrainAnswer& a) {
  const std::vector<const OpRooflinePoint*> ops = materialized_attention_ops(a);
  if (ops.empty() || !a.estimate.valid()) return "";
  double total_s = 0;
  double layer_s = 0;
  std::vector<std::string> parts;
  for (const OpRooflinePoint* op : ops) {
    total_s += op->time_s;
    parts.push_back(fmt::format("{} {}", op->name, secs(op->time_s)));
  }
  for (const OpRooflinePoint& op : a.roofline.ops) layer_s += op.time_s;
  return fmt::format(
      "attention as separate kernels ({}: the s×s scores through HBM), layer {} forward, one micro-batch: {} = {} of "
      "the layer's {}\n",
      a.ctx().framework->id, a.roofline.layer, fmt::join(parts, " + "), secs(total_s), secs(layer_s));
}

std::string assumptions_text(const std::vector<std::string>& assumptions) {
  if (assumptions.empty()) return "";
  std::string out = "\nAssumed (defaults of what was not given):\n";
  for (const std::string& line : assumptions) out += "  " + line + "\n";
  return out;
}

}  // namespace

std::string to_text(const TrainAnswer& a) {
  return train_text(a.ctx(), a.plan(), a.estimate, a.placement) + materialized_attention_text(a) + nearest_text(a) +
         default_system_text(a.ctx().system, *a.ctx().gpu, a.setup.system_defaulted) +
         calibration_text(a.setup.calibration_notes) + assumptions_text(a.setup.assumptions);
}

nlohmann::ordered_json to_json(const TrainAnswer& a) {
  nlohmann::ordered_json j = train_json(a.ctx(), a.plan(), a.estimate, a.placement);
  if (!a.estimate.feasible()) {
    nlohmann::ordered_json near = nlohmann::ordered_json::array();
    for (const NearbyPlan& n : a.nearest) {
      nlohmann::ordered_json row;
      row["change"] = n.change;
      row["step_time_s"] = n.step_time_s;
      row["memory_bytes"] = n.memory_bytes;
      row["plan"] = plan_json(n.plan);
      near.push_back(row);
    }
    j["nearest_feasible_plans"] = near;
  }
  add_default_system_json(j, a.ctx().system, *a.ctx().gpu, a.setup.system_defaulted);
  add_calibration_json(j, a.setup.calibration_profile, a.setup.calibration_notes);
  j["assumptions"] = a.setup.assumptions;
  // Materialised attention's kernels (first layer, forward, one micro-batch), as in the text.
  const std::vector<const OpRooflinePoint*> attention_ops = materialized_attention_ops(a);
  if (!attention_ops.empty() && a.estimate.valid()) {
    nlohmann::ordered_json ops = nlohmann::ordered_json::array();
    for (const OpRooflinePoint* op : attention_ops) {
      ops.push_back({{"name", op->name}, {"kind", op->kind}, {"flops", op->flops}, {"bytes", op->bytes},
                     {"forward_s", op->time_s}});
    }
    j["materialized_attention"] = {{"layer", a.roofline.layer}, {"ops", ops}};
  }
  return j;
}

std::string to_text(const MemoryAnswer& a) { return memory_text(a.train.ctx(), a.train.plan(), a.train.estimate, a.train.state); }

nlohmann::ordered_json to_json(const MemoryAnswer& a) {
  return memory_json(a.train.ctx(), a.train.plan(), a.train.estimate);
}

std::string to_text(const RuleOfThumbAnswer& a) { return rule_of_thumb_text(a); }

nlohmann::ordered_json to_json(const RuleOfThumbAnswer& a) { return rule_of_thumb_json(a); }

}  // namespace gpuplan
