// The training evaluator. One step of a plan, on the most loaded pipeline rank:
//   step = m·τ + (p−1)/v·τ + exposed DP/FSDP + exposed PP + optimizer (+ exposed offload)
// where τ is that rank's forward + backward (+ recompute, + exposed TP/CP/EP communication)
// time for one micro-batch, m the micro-batches per step, p the pipeline stages and v the
// virtual stages per rank (Narayanan et al. 2021, sec. 2.2). Sources: docs/model/training.md.
// The phases live one per file (plan/evaluate_internal.h); this file builds the context and
// assembles the step.
#include "plan/evaluate.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/error.h"
#include "core/reason_text.h"
#include "cost/framework_memory.h"
#include "plan/eval_memo.h"
#include "plan/evaluate_internal.h"
#include "workload/params.h"
#include "workload/size_math.h"

namespace gpuplan {
namespace {

using size_math::d;
using train_eval::Eval;
using train_eval::LayerCosts;
using train_eval::MicroBatchShape;
using train_eval::PipelineLoad;
using train_eval::RankLoad;

}  // namespace

RingAttentionCost ring_attention_cost(double steps, double fwd_step_s, double bwd_step_s, double attn_fwd_step_s,
                                      double attn_bwd_step_s) {
  RingAttentionCost c;
  c.fwd_comm_s = steps * fwd_step_s;
  c.bwd_comm_s = steps * bwd_step_s;
  c.fwd_exposed_s = steps * std::max(0.0, fwd_step_s - attn_fwd_step_s);
  c.bwd_exposed_s = steps * std::max(0.0, bwd_step_s - attn_bwd_step_s);
  return c;
}

double moe_paired_fraction(const Plan& p) {
  switch (p.moe_overlap) {
    case MoeOverlap::none:
      return 0;
    case MoeOverlap::dualpipe:
      return 1;
    case MoeOverlap::one_f_one_b:
      break;
  }
  // 1F1B pairs the forward of one micro-batch with the backward of another in its steady
  // state; the warm-up forwards and cool-down backwards of the first pipeline rank run alone:
  // pp - 1 of them (at least the first one: even without a pipeline the first forward has no
  // backward beside it), or Megatron's interleaved warm-up of 2(pp - 1) + (vp - 1)·pp chunks.
  const double chunks = static_cast<double>(p.micro_batches()) * p.vp;
  const double alone = p.vp == 1 ? std::max(1, p.pp - 1) : 2.0 * (p.pp - 1) + (p.vp - 1.0) * p.pp;
  return chunks > 0 ? std::max(0.0, 1 - std::min(alone, chunks) / chunks) : 0;
}

// The AllToAll `comm_s` of a layer (one micro-batch, forward and backward) beside `compute_s`
// of compute. A paired forward-backward chunk takes max(comm, compute + share·comm): the
// dispatch/combine kernels hold `sm_share` of the SMs while they run (DeepSeek-V3 report,
// sec. 3.2.2), so even fully hidden communication slows the compute under it. Unpaired
// chunks wait for their communication.
double ep_exposed_s(double comm_s, double compute_s, double paired_fraction, double sm_share) {
  if (comm_s <= 0) return 0;
  const double paired = std::max(comm_s - compute_s, sm_share * comm_s);
  return paired_fraction * paired + (1 - paired_fraction) * comm_s;
}

double ep_overlap_pair_s(const EpOverlapLayer& x) {
  // Issue order of one run(f_layer, b_layer) call (Megatron-Core model_chunk_schedule_plan.py,
  // TransformerLayerSchedulePlan.run; the same order at core_v0.14–v0.16):
  //   comm stream: combine_bwd(b), dispatch_fwd(f), dispatch_bwd(b), combine_fwd(f)
  //   comp stream: attn_fwd(f), mlp_dgrad(b), mlp_wgrad(b), mlp_fwd(f), attn_bwd(b)
  // Within a micro-batch each node waits for the one before it: f's attn → dispatch → mlp →
  // combine → the next layer's attn; b's combine → mlp dgrad → dispatch → attn → the previous
  // layer's combine. The wgrad has no node after it (delay_wgrad_compute). Runs follow each
  // other layer by layer; the steady state is the time per run after the first few.
  double comm_free = 0, comp_free = 0, f_done = 0, b_done = 0;
  const auto node = [](double& stream_free, double dep_done, double dur_s) {
    stream_free = std::max(stream_free, dep_done) + dur_s;
    return stream_free;
  };
  constexpr int kWarm = 4, kRuns = 8;
  double warm_end = 0;
  for (int r = 0; r < kRuns; ++r) {
    const double combine_bwd = node(comm_free, b_done, x.combine_bwd_s);
    const double attn_fwd = node(comp_free, f_done, x.attn_fwd_s);
    const double mlp_dgrad = node(comp_free, combine_bwd, x.mlp_dgrad_s);
    const double dispatch_fwd = node(comm_free, attn_fwd, x.dispatch_fwd_s);
    node(comp_free, 0, x.mlp_wgrad_s);
    const double dispatch_bwd = node(comm_free, mlp_dgrad, x.dispatch_bwd_s);
    const double mlp_fwd = node(comp_free, dispatch_fwd, x.mlp_fwd_s);
    f_done = node(comm_free, mlp_fwd, x.combine_fwd_s);
    b_done = node(comp_free, dispatch_bwd, x.attn_bwd_s);
    if (r + 1 == kWarm) warm_end = std::max(comm_free, comp_free);
  }
  return (std::max(comm_free, comp_free) - warm_end) / (kRuns - kWarm);
}

double dualpipe_bubble_s(int pp, double tau_s, double bwd_s, double recompute_s) {
  const double w = std::max(0.0, bwd_s - recompute_s) / 2;
  const double b = bwd_s - w;
  return std::max(0.0, pp / 2.0 - 1) * std::max(0.0, tau_s + b - 3 * w);
}

double train_eval::pipeline_bubble_s(int stages, int vp, double tau_max_s, double tau_slack_s) {
  // The even split's term first, written as before, so a zero slack leaves it to the bit.
  return std::max(0.0, (stages - 1.0) / vp * tau_max_s - tau_slack_s / vp);
}

TrainContext make_train_context(const Catalog& catalog, const ModelSpec& model, const Gpu& gpu, const System* system,
                                const Fabric* fabric, const TrainOptions& options) {
  TrainContext ctx;
  ctx.model = &model;
  ctx.gpu = &gpu;
  ctx.system = system;
  ctx.fabric = fabric;
  ctx.options = options;
  ctx.efficiency = options.efficiency ? options.efficiency : efficiency_for(catalog.efficiencies, gpu);
  if (!ctx.efficiency) {
    throw Error("no efficiency data for GPU '" + gpu.id + "' (architecture '" + gpu.architecture +
                "'): add a kind = \"efficiency\" file naming it, or one with fallback = true");
  }
  if (model.layers <= 0 || model.hidden <= 0 || model.heads <= 0) {
    throw Error("model '" + model.id + "' has no layers, hidden size or heads");
  }
  ctx.framework = options.framework ? options.framework : default_framework(catalog);
  ctx.device = make_roofline_device(gpu, *ctx.efficiency, ctx.framework);
  if (system) {
    ctx.topology = make_collective_topology(catalog, *system, fabric, default_collective_params(catalog));
    ctx.domain_gpus = system->gpus;
    ctx.host_memory_bw_bytes_per_s = system->host_memory_bw_bytes_per_s;
    ctx.host_memory_bytes = system->host_memory_bytes;
    ctx.host_gpus = system->gpus_per_host;
  }
  // The host link of optimizer and activation offload: the GPU's own host link where the
  // catalog names one (NVLink-C2C on Grace superchips), else the x16 link of its PCIe
  // generation (data/hardware/links/pcieN.toml); at the collectives file's measured
  // efficiency for that link family (a catalog without collective constants: the line rate).
  const Link* host_link = gpu.host_link.empty() ? nullptr : catalog.find_link(gpu.host_link);
  if (!host_link && gpu.pcie_gen > 0) host_link = catalog.find_link("pcie" + std::to_string(gpu.pcie_gen));
  if (const Link* link = host_link) {
    const CollectiveLinkParams* params = catalog.collective_params.empty()
                                             ? nullptr
                                             : default_collective_params(catalog).find_link(link->id, link->family);
    ctx.host_link_bw_bytes_per_s = link->device_bw_uni_bytes_per_s * (params ? params->bw_efficiency : 1.0);
  }
  // What the allocator can have: the GPU file's usable memory (nvidia-smi's total) less what the
  // driver keeps from every process (the family's measured reserve).
  ctx.usable_memory_bytes = options.usable_memory_bytes > 0
                                ? options.usable_memory_bytes
                                : gpu.usable_memory_bytes - ctx.efficiency->driver_reserved_bytes;
  ctx.driver_reserved_bytes = options.usable_memory_bytes > 0 ? 0 : ctx.efficiency->driver_reserved_bytes;
  if (ctx.framework) ctx.options.state = framework_state_bytes(ctx.framework->memory, options.state);
  if (!(options.memory_headroom_bytes >= 0)) {
    throw Error("memory headroom " + std::to_string(options.memory_headroom_bytes) +
                " bytes: must be 0 or more (0 = none)");
  }
  ctx.memory_headroom_bytes = options.memory_headroom_bytes;
  ctx.runtime_overhead_bytes = options.runtime_overhead_bytes >= 0
                                   ? options.runtime_overhead_bytes
                                   : ctx.efficiency->cuda_context_bytes + ctx.efficiency->nccl_buffer_bytes;
  ctx.fragmentation_fraction =
      options.fragmentation_fraction >= 0 ? options.fragmentation_fraction : ctx.efficiency->fragmentation_fraction;
  ctx.matmul_active_params = count_params(model).matmul_active;
  if (model.max_seq_len >= 1) set_flops_seq_len(ctx, model.max_seq_len);
  ctx.prefix.assign(static_cast<std::size_t>(model.layers) + 1, {});
  int layer_order = 0;
  for (std::int64_t i = 0; i < model.layers; ++i) {
    const int kind = layer_kind(model, i);
    ctx.prefix[static_cast<std::size_t>(i) + 1] = ctx.prefix[static_cast<std::size_t>(i)];
    ++ctx.prefix[static_cast<std::size_t>(i) + 1][static_cast<std::size_t>(kind)];
    if (ctx.prefix[static_cast<std::size_t>(i)][static_cast<std::size_t>(kind)] == 0) {
      ctx.first_layer_of_kind[static_cast<std::size_t>(kind)] = i;
      ctx.kinds_in_layer_order[static_cast<std::size_t>(layer_order++)] = static_cast<std::uint8_t>(kind);
    }
  }
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (ctx.prefix.back()[k] > 0)
      ctx.present_kinds[static_cast<std::size_t>(ctx.present_kind_count++)] = static_cast<std::uint8_t>(k);
  }
  return ctx;
}

void set_flops_seq_len(TrainContext& ctx, std::int64_t seq_len) {
  ctx.flops_seq_len = seq_len;
  ctx.flops_per_token = train_flops_per_token(*ctx.model, ctx.matmul_active_params, seq_len);
}

void TrainEvalMemoDelete::operator()(TrainEvalMemo* memo) const { delete memo; }

TrainEvalMemoPtr make_train_eval_memo(const TrainContext& ctx) { return TrainEvalMemoPtr(new TrainEvalMemo(ctx)); }

CollectiveTime train_eval::Eval::memo_collective_time(const CollectiveRequest& r) {
  if (const CollectiveTime* held = memo->find(r)) return *held;
  const CollectiveTime t = estimate_collective_time(r, ctx.topology);
  memo->store(r, t);
  return t;
}

OpShape train_op_shape(const TrainContext& ctx, const Plan& p) {
  const ModelSpec& m = *ctx.model;
  OpShape shape;
  shape.micro_batch = p.micro_batch;
  shape.seq_len = p.seq_len > 0 ? p.seq_len : d(m.max_seq_len);
  shape.tp = p.tp;
  shape.cp = p.cp;
  shape.ep = p.ep;
  shape.sp = p.sp && p.tp > 1;
  shape.moe_imbalance = p.moe_imbalance;
  shape.moe_fused_dispatch = p.moe_overlap == MoeOverlap::dualpipe;
  shape.moe_flex_dispatch = p.moe_dispatcher == MoeDispatcher::flex;
  shape.gemm = p.precision;
  shape.scaling = p.scaling;
  shape.low_precision_act_cache = p.low_precision_act_cache;
  shape.nvfp4_rht = p.nvfp4_rht && p.precision == Precision::fp4 && p.scaling == ScalingRecipe::nvfp4;
  shape.eager_elementwise = p.eager_elementwise;
  shape.attention_mask_materialized =
      !p.eager_elementwise && ctx.framework && ctx.framework->compiled_mask_materialized;
  shape.attention_materialized = ctx.framework && ctx.framework->attention_materialized;
  shape.attention_probs_dropout = shape.attention_materialized && ctx.framework->attention_probs_dropout;
  shape.rope_unfused =
      !p.eager_elementwise && m.rope_attention_factor != 1 && ctx.framework && ctx.framework->scaled_rope_unfused;
  shape.glu_clamp_unfused =
      !p.eager_elementwise && m.glu_clamp > 0 && ctx.framework && ctx.framework->glu_clamp_unfused;
  shape.act = (p.precision == Precision::fp32 || p.precision == Precision::tf32) ? Precision::fp32
              : p.precision == Precision::fp16                                   ? Precision::fp16
                                                                                 : Precision::bf16;
  if (p.precision == Precision::tf32) shape.act = Precision::tf32;
  return shape;
}

namespace {

MicroBatchShape micro_batch_shape(const TrainContext& ctx, const Plan& p) {
  // The shape and the placement built in place (not default-constructed, then assigned).
  MicroBatchShape s{.op = train_op_shape(ctx, p), .placement = place_plan(p, ctx.domain_gpus)};
  const OpShape& shape = s.op;
  s.act_bytes = precision_bytes(shape.act);
  s.tokens = shape.tokens();
  s.micro_batches = p.micro_batches();
  s.stages = p.pp;
  return s;
}

// The step (Narayanan et al. 2021, sec. 2.2), throughput, MFU/HFU, memory and the bottleneck.
void assemble(const TrainContext& ctx, const Plan& p, const MicroBatchShape& s, const PipelineLoad& load,
              const CommCost& dp, const CommCost& pp, double optimizer_s, const OffloadCost& offload, Estimate& est) {
  const ModelSpec& m = *ctx.model;
  const int micro_batches = s.micro_batches;
  const int stages = s.stages;
  const RankLoad& worst = load.worst;
  const double tau = worst.tau_s;
  const double bubble_s = p.moe_overlap == MoeOverlap::dualpipe
                              ? dualpipe_bubble_s(stages, tau, worst.bwd_s, worst.recompute_s)
                              : train_eval::pipeline_bubble_s(stages, p.vp, tau, load.tau_slack_s);
  const double step = micro_batches * tau + bubble_s + dp.exposed_s + pp.exposed_s + optimizer_s +
                      offload.grads.exposed_s + offload.weights.exposed_s;

  est.gpus = p.gpus();
  est.micro_batches = micro_batches;
  est.tokens_per_step = static_cast<double>(p.global_batch_seqs()) * s.op.seq_len;
  est.step_time_s = step;
  est.tokens_per_s = est.tokens_per_step / step;
  est.tokens_per_s_per_gpu = est.tokens_per_s / est.gpus;
  // Model FLOPs: 6N + causal attention per token (workload/params.h), N the weights a token multiplies.
  const auto seq_len = static_cast<std::int64_t>(s.op.seq_len);
  est.model_flops_per_step = est.tokens_per_step * (seq_len == ctx.flops_seq_len
                                                        ? ctx.flops_per_token
                                                        : train_flops_per_token(m, ctx.matmul_active_params, seq_len));
  est.hardware_flops_per_step = load.hw_flops_per_mb * micro_batches * p.dp;
  const double peak = ctx.gpu->dense(p.precision);
  est.tflops_per_gpu = est.model_flops_per_step / step / est.gpus / 1e12;
  est.mfu = est.model_flops_per_step / (step * est.gpus * peak);
  // HFU counts the recomputed forward too (Korthikanti et al. 2022, sec. 6).
  est.hfu = (est.model_flops_per_step + load.recompute_flops_per_mb * micro_batches * p.dp) / (step * est.gpus * peak);
  est.tensor_clock_factor = ctx.device.tensor_clock_factor;  // computed once, with the device's rates
  est.gemm_clock_factor = ctx.device.gemm_clock_factor[index_of(p.precision)];
  est.bubble_fraction = p.moe_overlap != MoeOverlap::dualpipe && load.tau_slack_s == 0
                            ? (stages - 1.0) / (p.vp * static_cast<double>(micro_batches))
                        : tau > 0 ? bubble_s / (micro_batches * tau)
                                  : 0;
  est.memory = load.worst_memory;
  est.memory_stage = load.worst_memory_rank;
  est.memory_capacity_bytes = ctx.usable_memory_bytes;

  TrainBreakdown& b = est.breakdown;
  b.forward_s = micro_batches * worst.fwd_s;
  b.backward_s = micro_batches * worst.bwd_s;
  b.recompute_s = micro_batches * worst.recompute_s;
  b.bubble_s = bubble_s;
  b.optimizer_s = optimizer_s;
  b.tp = {micro_batches * worst.tp_s, micro_batches * worst.tp_exposed_s};
  b.cp = {micro_batches * worst.cp_s, micro_batches * worst.cp_exposed_s};
  b.ep = {micro_batches * worst.ep_s, micro_batches * worst.ep_exposed_s};
  b.pp = pp;
  b.dp = dp;
  b.offload_grads = offload.grads;
  b.offload_weights = offload.weights;
  b.offload_activations = {micro_batches * worst.offload_s, micro_batches * worst.offload_exposed_s};
  b.mtp_s = micro_batches * worst.mtp_s;

  // The largest exposed row of the step's table: forward and backward are separate rows, so a
  // pipeline bubble larger than either (48% of a step: 17% forward, 35% backward) is named, not
  // hidden under their sum.
  const std::array<std::pair<double, Bottleneck>, 9> parts{
      {{b.forward_s, Bottleneck::compute},
       {b.backward_s, Bottleneck::compute},
       {b.bubble_s, Bottleneck::pipeline_bubble},
       {b.tp.exposed_s, Bottleneck::tp_comm},
       {b.cp.exposed_s, Bottleneck::cp_comm},
       {b.ep.exposed_s, Bottleneck::ep_comm},
       {b.pp.exposed_s, Bottleneck::pp_comm},
       {b.dp.exposed_s, Bottleneck::dp_comm},
       {b.optimizer_s + b.offload_grads.exposed_s + b.offload_weights.exposed_s, Bottleneck::optimizer}}};
  est.bottleneck = std::max_element(parts.begin(), parts.end())->second;
  if (p.offload_optimizer) {
    est.host_memory_bytes = load.max_host_bytes;
    est.host_memory_capacity_bytes = ctx.host_memory_bytes / std::max(1, std::min(ctx.host_gpus, p.gpus()));
  }
  // The verdict's margin, and whether it is inside the model's own memory error (the
  // framework's measured median error on peak memory): then "tight", not "fits".
  est.memory_margin_bytes = ctx.usable_memory_bytes - load.worst_memory.total_bytes - ctx.memory_headroom_bytes;
  est.memory_error_fraction = ctx.framework ? ctx.framework->memory.memory_error_fraction : 0;
  est.driver_reserved_bytes = ctx.driver_reserved_bytes;
  est.memory_tight = est.memory_margin_bytes >= 0 &&
                     load.worst_memory.total_bytes * est.memory_error_fraction > est.memory_margin_bytes;
  if (load.worst_memory.total_bytes + ctx.memory_headroom_bytes > ctx.usable_memory_bytes) {
    est.bottleneck = Bottleneck::memory;
    // Most plans a search evaluates end here: ReasonText writes printf's "%.1f" text without
    // printf (core/reason_text.h).
    constexpr double gib = 1024.0 * 1024 * 1024;
    ReasonText text;
    text.text("needs ").fixed(load.worst_memory.total_bytes / gib, 1).text(" GiB per GPU (pipeline rank ");
    text.integer(load.worst_memory_rank).text(")");
    if (ctx.memory_headroom_bytes > 0) text.text(" + ").fixed(ctx.memory_headroom_bytes / gib, 1).text(" GiB headroom");
    text.text(", ").fixed(ctx.usable_memory_bytes / gib, 1).text(" GiB usable");
    est.verdict.set(Infeasibility::Kind::out_of_memory, text.view());
  } else if (est.host_memory_capacity_bytes > 0 && est.host_memory_bytes > est.host_memory_capacity_bytes) {
    est.bottleneck = Bottleneck::memory;
    std::array<char, Infeasibility::kCapacity> text{};
    constexpr double gib = 1024.0 * 1024 * 1024;
    std::snprintf(text.data(), text.size(),
                  "offloaded optimizer needs %.1f GiB of host memory per GPU, %.1f GiB is its share",
                  est.host_memory_bytes / gib, est.host_memory_capacity_bytes / gib);
    est.verdict.set(Infeasibility::Kind::out_of_memory, text.data());
  }
}

}  // namespace

// Phases: structure check → shapes → per-layer compute and TP/CP/EP communication → per-rank
// load and memory → DP and PP communication → optimizer → assemble. A phase that finds the
// plan impossible records why (Eval::fail) and the estimate returns invalid.
Estimate evaluate(const TrainContext& ctx, const Plan& plan) { return evaluate(ctx, plan, nullptr); }

Estimate evaluate(const TrainContext& ctx, const Plan& plan, TrainEvalMemo* memo) {
  if (memo != nullptr && memo->owner != &ctx) memo = nullptr;
  Estimate est;
  Eval ev{ctx, plan, est, memo != nullptr ? &memo->collectives : nullptr};
  train_eval::check_structure(ev);
  if (!ev.ok) return est;
  const MicroBatchShape shape = micro_batch_shape(ctx, plan);
  // The per-layer costs, or the memo's for a plan differing only in ZeRO stage or shard.
  TrainLayerMemo* layer_memo = memo != nullptr && memo->keep_layer_costs ? &memo->layers : nullptr;
  const LayerCosts* held = layer_memo != nullptr ? layer_memo->find(plan) : nullptr;
  LayerCosts costed;
  if (held == nullptr) {
    train_eval::cost_layers(ev, shape, costed);
    if (!ev.ok) return est;
    held = layer_memo != nullptr ? layer_memo->store(plan, costed) : &costed;
  }
  // Bytes per parameter at the plan's optimizer-state precision (ctx.options.state at 32 bits).
  const StateBytes state = with_optimizer_state_bits(ctx.options.state, plan.optimizer_state_bits);
  const PipelineLoad load = train_eval::load_ranks(ctx, plan, shape, state, *held);
  const CommCost dp = train_eval::data_parallel_comm(ev, shape, load.worst, *held);
  const CommCost pp = train_eval::pipeline_comm(ev, shape);
  if (!ev.ok) return est;
  // Offloaded, the step runs on the CPU and the transfers are added; otherwise on the GPU.
  const OffloadCost offload =
      plan.offload_optimizer ? train_eval::offload_step(ctx, plan, state, load.worst) : OffloadCost{};
  const double optimizer_s =
      plan.offload_optimizer ? offload.cpu_step_s : train_eval::optimizer_step_s(ctx, plan, state, load.worst);
  assemble(ctx, plan, shape, load, dp, pp, optimizer_s, offload, est);
  return est;
}

}  // namespace gpuplan
