// The training evaluator. One step of a plan, on the most loaded pipeline rank:
//   step = m·τ + (p−1)/v·τ + exposed DP/FSDP + exposed PP + optimizer (+ exposed offload)
// where τ is that rank's forward + backward (+ recompute, + exposed TP/CP/EP communication)
// time for one micro-batch, m the micro-batches per step, p the pipeline stages and v the
// virtual stages per rank (Narayanan et al. 2021, sec. 2.2). Sources: docs/model/training.md.
#include "plan/evaluate.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/error.h"
#include "core/reason_text.h"
#include "cost/framework_memory.h"
#include "workload/params.h"
#include "workload/size_math.h"

namespace gpuplan {
namespace {

using size_math::d;

// Per-kind costs of one layer for one micro-batch on one GPU, under one plan.
struct KindCost {
  bool present = false;
  double fwd_s = 0;
  double bwd_s = 0;        // includes recompute
  double recompute_s = 0;
  double attn_fwd_s = 0;
  double tp_comm_s = 0;    // total, fwd + bwd (+ recomputed fwd)
  double tp_exposed_s = 0;
  double cp_comm_s = 0;
  double cp_exposed_s = 0;
  double ep_comm_s = 0;
  double ep_exposed_s = 0;
  double params = 0;        // on this GPU
  double expert_params = 0; // of which routed experts
  double low_precision_params = 0;
  double hw_flops = 0;      // fwd + bwd + recompute
  double recompute_flops = 0;
  double stored_bytes = 0;
  double working_bytes = 0;
  LayerActivations eager;  // what eager element-wise chains add (cost/framework_memory.h)
  double tau() const { return fwd_s + bwd_s + tp_exposed_s + cp_exposed_s + ep_exposed_s; }
};

struct Eval {
  const TrainContext& ctx;
  const Plan& plan;
  Estimate& est;
  bool ok = true;

  void fail(const char* fmt, auto... args) {
    if (!ok) return;
    ok = false;
    std::array<char, Infeasibility::kCapacity> text{};
    std::snprintf(text.data(), text.size(), fmt, args...);
    est.verdict.set(Infeasibility::Kind::invalid_plan, text.data());
  }

  // One collective over a group; 0 for a group of one.
  double coll(CollectiveOp op, double bytes, const GroupPlacement& g) {
    if (g.size <= 1 || bytes <= 0) return 0;
    const CollectiveTime e = estimate_collective_time(collective_request(op, bytes, g), ctx.topology);
    if (!e.feasible) {
      fail("%s over %d GPUs: %s", op_name(op).data(), g.size, e.reason);
      return 0;
    }
    return e.time_s;
  }
};

void check_structure(Eval& ev) {
  const Plan& p = ev.plan;
  const ModelSpec& m = *ev.ctx.model;
  if (p.tp < 1 || p.pp < 1 || p.vp < 1 || p.dp < 1 || p.cp < 1 || p.ep < 1 || p.micro_batch < 1) {
    return ev.fail("parallel degrees and the micro-batch must be at least 1");
  }
  if (p.zero < 0 || p.zero > 3) return ev.fail("ZeRO stage %d: use 0, 1, 2 or 3 (FSDP)", p.zero);
  if (m.heads % p.tp != 0) return ev.fail("TP %d does not divide the %lld attention heads", p.tp, static_cast<long long>(m.heads));
  if (!m.mla && m.kv_heads > 0 && m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0) {
    return ev.fail("TP %d and the %lld KV heads do not divide one another", p.tp, static_cast<long long>(m.kv_heads));
  }
  if (p.vp > 1 && p.pp == 1) return ev.fail("virtual pipeline stages (vp %d) need pp > 1", p.vp);
  // Counting the embedding and head as layers adds two slots to split.
  const std::int64_t slots = m.layers + (p.pp_embedding_head_slots ? 2 : 0);
  if (p.pp * p.vp > slots) {
    return ev.fail("pp %d x vp %d exceeds the %lld layers", p.pp, p.vp, static_cast<long long>(slots));
  }
  if (p.pp_embedding_head_slots && p.pp == 1) {
    return ev.fail("counting the embedding and head as pipeline layers needs pp > 1");
  }
  if (m.is_moe()) {
    if (m.moe.experts % p.ep != 0) return ev.fail("EP %d does not divide the %lld experts", p.ep, static_cast<long long>(m.moe.experts));
    if ((p.tp * p.cp * p.dp) % p.ep != 0) return ev.fail("EP %d must divide tp x cp x dp = %d", p.ep, p.tp * p.cp * p.dp);
  } else if (p.ep > 1) {
    return ev.fail("EP %d on a dense model: expert parallelism needs a MoE model", p.ep);
  }
  const int seq = plan_seq_len(p, m);
  if (seq <= 0) return ev.fail("no sequence length: pass --seq-len");
  if (seq % p.cp != 0) return ev.fail("CP %d does not divide the sequence length %d", p.cp, seq);
  if (p.global_batch > 0 && p.global_batch % (p.dp * p.micro_batch) != 0) {
    return ev.fail("global batch %d is not a multiple of dp %d x micro-batch %d", p.global_batch, p.dp, p.micro_batch);
  }
  // The interleaved 1F1B schedule needs whole rounds of pp micro-batches (Megatron-LM
  // asserts num_microbatches % pp == 0); with fewer the (p-1)/(v*m) bubble does not hold.
  const int micro_batches = p.global_batch > 0 ? p.global_batch / (p.dp * p.micro_batch) : 1;
  if (p.vp > 1 && micro_batches % p.pp != 0) {
    return ev.fail("interleaved pipeline (vp %d) needs the micro-batches per step (%d) to be a multiple of pp %d",
                   p.vp, micro_batches, p.pp);
  }
  if (p.dp_shard > 0 && p.dp % p.dp_shard != 0) return ev.fail("dp_shard %d does not divide dp %d", p.dp_shard, p.dp);
  if (!(p.moe_imbalance >= 1)) return ev.fail("MoE imbalance %g: the most loaded rank carries at least the mean (>= 1)", p.moe_imbalance);
  // DualPipe runs two pipelines in opposite directions over the same ranks (rank i holds
  // stages i and pp-1-i): an even number of stages, and no interleaving of its own.
  if (p.moe_overlap == MoeOverlap::dualpipe && (p.pp < 2 || p.pp % 2 != 0 || p.vp > 1)) {
    return ev.fail("DualPipe needs an even pp of at least 2 and vp 1 (pp %d, vp %d)", p.pp, p.vp);
  }
  if (p.optimizer_state_bits != 32 && p.optimizer_state_bits != 16 && p.optimizer_state_bits != 8) {
    return ev.fail("optimizer state bits %d: use 32, 16 or 8", p.optimizer_state_bits);
  }
  if (p.offload_optimizer && ev.ctx.host_link_bw_bytes_per_s <= 0) {
    return ev.fail("optimizer offload: %s has no PCIe generation in the catalog", ev.ctx.gpu->id.c_str());
  }
  if (p.offload_optimizer && ev.ctx.host_memory_bw_bytes_per_s <= 0) {
    return ev.fail("optimizer offload: %s has no host memory bandwidth in the catalog ([host] of its file)",
                   ev.ctx.system ? ev.ctx.system->id.c_str() : "a single GPU without a system");
  }
  if (ev.ctx.gpu->dense(p.precision) <= 0) {
    return ev.fail("%s has no dense %s tensor-core rate", ev.ctx.gpu->id.c_str(), precision_name(p.precision).data());
  }
  if (!scaling_recipe_fits(p.scaling, p.precision)) {
    return ev.fail("scaling recipe %s does not apply to %s linear layers", scaling_recipe_name(p.scaling).data(),
                   precision_name(p.precision).data());
  }
  if (needs_block_scaled_mma(p.scaling) && !has_block_scaled_mma(*ev.ctx.gpu)) {
    return ev.fail("%s needs block-scaled tensor cores; %s has none", scaling_recipe_name(p.scaling).data(),
                   ev.ctx.gpu->id.c_str());
  }
  if (p.gpus() > 1 && ev.ctx.system == nullptr) return ev.fail("%d GPUs need a system (--system)", p.gpus());
}

// Layers [start, end) of the model, counted by kind.
std::array<std::int32_t, kLayerKinds> kinds_in(const TrainContext& ctx, std::int64_t start, std::int64_t end) {
  std::array<std::int32_t, kLayerKinds> n{};
  for (int k = 0; k < kLayerKinds; ++k) {
    n[static_cast<std::size_t>(k)] = ctx.prefix[static_cast<std::size_t>(end)][static_cast<std::size_t>(k)] -
                                     ctx.prefix[static_cast<std::size_t>(start)][static_cast<std::size_t>(k)];
  }
  return n;
}

// One hop of a ring over `group`: between two GPUs of one scale-up domain, or across the
// network when the group spans domains (the ring then has hops that leave the domain, and a
// ring step ends when its slowest hop does).
GroupPlacement ring_hop(const GroupPlacement& group) {
  GroupPlacement hop = group;
  hop.size = 2;
  hop.gpus_per_domain = group.crosses_domains() ? 1 : 2;
  hop.domains = group.crosses_domains() ? 2 : 1;
  return hop;
}

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

LayerRange pipeline_chunk_layers(std::int64_t layers, std::int64_t chunks, bool embedding_head_slots,
                                 std::int64_t chunk) {
  if (!embedding_head_slots) return {chunk * layers / chunks, (chunk + 1) * layers / chunks};
  // Slot 0 is the embedding, slot L + 1 the head; decoder layer i is slot i + 1.
  const std::int64_t slots = layers + 2;
  const std::int64_t begin = std::clamp<std::int64_t>(chunk * slots / chunks - 1, 0, layers);
  const std::int64_t end = std::clamp<std::int64_t>((chunk + 1) * slots / chunks - 1, begin, layers);
  return {begin, end};
}

CommCost fsdp_micro_batch_cost(double units, double gather_s, double reduce_scatter_s, double fwd_unit_s,
                               double bwd_unit_s) {
  CommCost c;
  c.total_s = units * (2 * gather_s + reduce_scatter_s);
  // Forward: unit i's gather runs during unit i − 1's forward; the first has nothing ahead.
  const double fwd = gather_s + (units - 1) * std::max(0.0, gather_s - fwd_unit_s);
  // Backward: while a unit runs its backward, the next unit's gather and the previous unit's
  // reduce-scatter share the communication stream; the first gather and the last
  // reduce-scatter have no compute beside them.
  const double bwd = gather_s + (units - 1) * std::max(0.0, gather_s + reduce_scatter_s - bwd_unit_s) + reduce_scatter_s;
  c.exposed_s = std::min(c.total_s, fwd + bwd);
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

double dualpipe_bubble_s(int pp, double tau_s, double bwd_s, double recompute_s) {
  const double w = std::max(0.0, bwd_s - recompute_s) / 2;
  const double b = bwd_s - w;
  return std::max(0.0, pp / 2.0 - 1) * std::max(0.0, tau_s + b - 3 * w);
}

OffloadCost optimizer_offload_cost(double params, double grad_bytes, double weight_bytes, double host_bytes_per_param,
                                   double link_bw, double host_bw, double backward_s) {
  OffloadCost c;
  // Each gradient bucket is copied to the host as soon as the backward produces (and, with
  // ZeRO, reduce-scatters) it, under the rest of the backward (ZeRO-Offload sec. 4.1).
  c.grads.total_s = params * grad_bytes / link_bw;
  c.grads.exposed_s = std::max(0.0, c.grads.total_s - backward_s);
  // Without the delayed parameter update (sec. 5.2) the CPU step and the copy of the updated
  // weights back to the GPU stand between this step's backward and the next forward.
  c.cpu_step_s = params * host_bytes_per_param / host_bw;
  c.weights.total_s = params * weight_bytes / link_bw;
  c.weights.exposed_s = c.weights.total_s;
  return c;
}

namespace {

KindCost cost_kind(Eval& ev, std::int64_t layer_idx, const OpShape& shape, const Placement& pl) {
  const TrainContext& ctx = ev.ctx;
  const ModelSpec& m = *ctx.model;
  const Plan& p = ev.plan;
  KindCost k;
  k.present = true;
  LayerOps ops;
  build_layer_ops(m, layer_idx, shape, ops);
  double attn_bwd_s = 0;
  double gemm_s = 0;
  double host_fwd_s = 0;
  double host_bwd_s = 0;
  double pre_sync_fwd_s = 0;  // forward GPU and host time of the ops before a host sync
  double pre_sync_host_s = 0;
  double selective_s = 0;
  double selective_host_s = 0;
  double selective_flops = 0;
  double cache_recompute_s = 0;  // MoE SwiGLU outputs the low-precision cache does not keep
  double cache_recompute_host_s = 0;
  for (int i = 0; i < ops.count; ++i) {
    const Op& op = ops.ops[static_cast<std::size_t>(i)];
    const OpTime t = op_time(ctx.device, op, shape.gemm, shape.act);
    if (i < ops.host_sync_at) {
      pre_sync_fwd_s += t.fwd_s;
      pre_sync_host_s += t.host_fwd_s;
    }
    k.fwd_s += t.fwd_s;
    k.bwd_s += t.bwd_s;
    host_fwd_s += t.host_fwd_s;
    host_bwd_s += t.host_bwd_s;
    if (op.kind == OpKind::attention) {
      k.attn_fwd_s += t.fwd_s;
      attn_bwd_s += t.bwd_s;
    }
    if (op.kind == OpKind::gemm) gemm_s += t.fwd_s + t.bwd_s;
    if (op.selective) {
      selective_s += t.fwd_s;
      selective_host_s += t.host_fwd_s;
      selective_flops += op.fwd_flops;
      if (op.group == OpGroup::moe && op.kind == OpKind::memory) {
        cache_recompute_s += t.fwd_s;
        cache_recompute_host_s += t.host_fwd_s;
      }
    }
    k.params += op.params;
    if (op.routed_expert) k.expert_params += op.params;
    if (op.low_precision) k.low_precision_params += op.params;
    k.hw_flops += op.fwd_flops + op.bwd_flops;
  }
  // The host issues kernels ahead of the GPU; a pass takes the slower of the two. A host-device
  // synchronisation (a dropless MoE layer's token counts, LayerOps::host_sync_at) empties the
  // launch queue: the host cannot issue the kernels after it while the GPU runs those before
  // it, so the forward is two stretches, each the slower of GPU and host. The backward reuses
  // the counts and runs ahead as one stretch.
  k.fwd_s = ops.host_sync_at < 0 ? issue_bound_s(k.fwd_s, host_fwd_s)
                                 : issue_bound_s(pre_sync_fwd_s, pre_sync_host_s) +
                                       issue_bound_s(k.fwd_s - pre_sync_fwd_s, host_fwd_s - pre_sync_host_s);
  k.bwd_s = issue_bound_s(k.bwd_s, host_bwd_s);
  const double fwd_compute_s = k.fwd_s;
  if (p.recompute == Recompute::full) {
    k.recompute_s = fwd_compute_s;
    k.recompute_flops = ops.fwd_flops();
  } else if (p.recompute == Recompute::selective) {
    k.recompute_s = issue_bound_s(selective_s, selective_host_s);
    k.recompute_flops = selective_flops;
  } else if (shape.low_precision_act_cache && shape.gemm != shape.act) {
    // The cache keeps the experts' SwiGLU inputs only: their outputs are recomputed in the
    // backward even without a recompute setting (DeepSeek-V3 report sec. 3.3.3).
    k.recompute_s = issue_bound_s(cache_recompute_s, cache_recompute_host_s);
  }
  k.hw_flops += k.recompute_flops;
  k.bwd_s += k.recompute_s;

  const double a = precision_bytes(shape.act);
  const double tokens = shape.tokens();
  const double h = d(m.hidden);
  const bool moe = m.is_moe_layer(layer_idx);
  const double fwd_passes = p.recompute == Recompute::full ? 2 : 1;

  // Tensor parallelism: per block, one AllReduce of the block output (or AllGather +
  // ReduceScatter of the same size with SP) forward, and the same backward (Shoeybi et al.
  // 2019, fig. 4; Korthikanti et al. 2022, fig. 5). A MoE block with expert TP = 1 needs one
  // only for its shared experts.
  if (p.tp > 1) {
    // A hybrid's layer may hold only its mixer (attention or Mamba: one AllReduce after the
    // out-projection) or only its MLP.
    // A parallel block adds the attention and MLP partial sums before the one reduction.
    const double separate = (m.mixer(layer_idx) != MixerKind::none ? 1 : 0) +
                            ((m.has_ffn(layer_idx) && (!moe || m.moe.shared_experts > 0)) ? 1 : 0);
    const double blocks = m.parallel_block ? std::min(separate, 1.0) : separate;
    const double bytes = tokens * h * a;
    const double one = p.sp ? ev.coll(CollectiveOp::all_gather, bytes, pl.tp) + ev.coll(CollectiveOp::reduce_scatter, bytes, pl.tp)
                            : ev.coll(CollectiveOp::all_reduce, bytes, pl.tp);
    k.tp_comm_s = blocks * one * (fwd_passes + 1);
    // Hidden at most behind the layer's GEMMs, and only the share the software overlaps.
    // The overlap (Transformer Engine userbuffers, Megatron's TP comm overlap) works over
    // NVLink peer memory inside one scale-up domain; a TP group that spans domains waits on
    // the network, so its communication is exposed.
    const bool overlappable = p.tp_comm_overlap && !pl.tp.crosses_domains();
    const double hidden = overlappable ? std::min(gemm_s, k.tp_comm_s * ctx.efficiency->tp_comm_overlap_fraction) : 0;
    k.tp_exposed_s = k.tp_comm_s - hidden;
  }
  // Context parallelism: ring attention as Megatron-Core runs it (Transformer Engine's
  // AttnFuncWithCPAndKVP2P; Liu et al. 2023, Ring Attention, arXiv:2310.01889). Each rank holds
  // seq/cp tokens (two mirrored chunks of seq/(2·cp), so that causal work is balanced: ops.cpp
  // gives every rank 1/cp of the attention). The forward takes cp − 1 ring steps, each sending
  // the K/V block in hand (seq/cp tokens) to the next rank while the attention of that block
  // runs; the backward passes K/V and their gradients (twice the bytes) per step. A step's
  // transfer is hidden only behind that step's attention (1/cp of the kernel time); the
  // excess is exposed (Liu et al. sec. 3: the block must be large enough that compute covers
  // communication). Recompute (full, or selective, which reruns the attention core) repeats
  // the forward ring.
  if (p.cp > 1 && m.is_attention_layer(layer_idx)) {
    double kv_width = 0;
    if (m.mla) {
      kv_width = d(m.heads) / p.tp * d(m.mla_shape.qk_nope_head_dim + m.mla_shape.qk_rope_head_dim + m.mla_shape.v_head_dim);
    } else {
      kv_width = std::max(1.0, d(m.kv_heads) / p.tp) * 2 * d(m.head_dim);
    }
    const double block_bytes = shape.micro_batch * shape.seq_len / p.cp * kv_width * a;
    const GroupPlacement hop = ring_hop(pl.cp);
    const double steps = p.cp - 1;
    const double fwd_step = ev.coll(CollectiveOp::send_recv, block_bytes, hop);
    const double bwd_step = ev.coll(CollectiveOp::send_recv, 2 * block_bytes, hop);
    const double ring_passes = p.recompute == Recompute::none ? 1 : 2;
    const RingAttentionCost ring = ring_attention_cost(steps, fwd_step, bwd_step, k.attn_fwd_s / p.cp, attn_bwd_s / p.cp);
    k.cp_comm_s = ring.fwd_comm_s * ring_passes + ring.bwd_comm_s;
    k.cp_exposed_s = ring.fwd_exposed_s * ring_passes + ring.bwd_exposed_s;
  }
  // Expert parallelism: AllToAll dispatch and combine of every routed token copy, forward
  // and backward (Lepikhin et al. 2020, GShard; DeepSeek-AI 2024, sec. 3.2), over the levels
  // of the topology the EP group spans. The most loaded rank receives `imbalance` times the
  // mean and sets the pace. Hidden, as far as the schedule pairs micro-batches, behind the
  // compute of the same layer (ep_exposed_s).
  if (moe && p.ep > 1) {
    const double rows = tokens / p.tp;
    const double bytes = rows * d(m.moe.top_k) * h * a * std::max(1.0, p.moe_imbalance);
    const double one = ev.coll(CollectiveOp::all_to_all, bytes, pl.ep);
    // DeepSeek's fp8 dispatch moves 1-byte tokens forward; combines and every backward
    // AllToAll stay 16-bit (OpShape::moe_fused_dispatch).
    const double dispatch =
        shape.fp8_moe_dispatch() ? ev.coll(CollectiveOp::all_to_all, bytes * precision_bytes(shape.gemm) / a, pl.ep) : one;
    k.ep_comm_s = (dispatch + one) * fwd_passes + 2 * one;
    const double sm_share = std::min(1.0, ctx.efficiency->moe_comm_sms / ctx.device.sm_count);
    k.ep_exposed_s = ep_exposed_s(k.ep_comm_s, k.fwd_s + k.bwd_s, moe_paired_fraction(p), sm_share);
  }

  const LayerActivations act = layer_activations(m, layer_idx, shape, p.recompute);
  k.stored_bytes = act.stored_bytes;
  k.working_bytes = act.working_bytes;
  k.eager = eager_saved_activations(ctx.framework ? ctx.framework->memory : FrameworkMemory{}, m, layer_idx, shape,
                                    p.recompute);
  return k;
}

// What one pipeline rank holds and spends per micro-batch.
struct RankLoad {
  double tau_s = 0;
  double fwd_s = 0;
  double bwd_s = 0;
  double recompute_s = 0;
  double tp_s = 0, tp_exposed_s = 0, cp_s = 0, cp_exposed_s = 0, ep_s = 0, ep_exposed_s = 0;
  double params = 0;
  double expert_params = 0;
  double low_precision_params = 0;
  double stored_bytes = 0;  // one micro-batch, all layers of the rank
  double working_bytes = 0;
  double eager_stored_bytes = 0;   // one micro-batch, all layers of the rank
  double eager_working_bytes = 0;
  double max_layer_params = 0;
  double layers = 0;  // decoder layers on the rank (FSDP units)
};

void add_ops_to_rank(const TrainContext& ctx, const LayerOps& ops, const OpShape& shape, RankLoad& r) {
  const OpTime t = layer_time(ctx.device, ops, shape.gemm, shape.act);
  r.fwd_s += issue_bound_s(t.fwd_s, t.host_fwd_s);
  r.bwd_s += issue_bound_s(t.bwd_s, t.host_bwd_s);
  r.params += ops.params();
}

}  // namespace

TrainContext make_train_context(const Catalog& catalog, const ModelSpec& model, const Gpu& gpu,
                                const System* system, const Fabric* fabric, const TrainOptions& options) {
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
  // Optimizer offload's host link: the x16 link of the GPU's PCIe generation
  // (data/hardware/links/pcieN.toml) at the collectives file's measured host-to-device
  // efficiency for PCIe (a catalog without collective constants: the line rate).
  if (const Link* link = gpu.pcie_gen > 0 ? catalog.find_link("pcie" + std::to_string(gpu.pcie_gen)) : nullptr) {
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
  ctx.layer_kind.resize(static_cast<std::size_t>(model.layers));
  ctx.prefix.assign(static_cast<std::size_t>(model.layers) + 1, {});
  for (std::int64_t i = 0; i < model.layers; ++i) {
    const int kind = layer_kind(model, i);
    ctx.layer_kind[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(kind);
    ctx.prefix[static_cast<std::size_t>(i) + 1] = ctx.prefix[static_cast<std::size_t>(i)];
    ++ctx.prefix[static_cast<std::size_t>(i) + 1][static_cast<std::size_t>(kind)];
  }
  return ctx;
}

namespace {

// The shapes one micro-batch runs at under the plan, and where its groups sit.
struct MicroBatchShape {
  OpShape op;
  Placement placement;
  double act_bytes = 0;  // bytes per activation element
  double tokens = 0;     // tokens of one micro-batch on one GPU's slice
  int micro_batches = 0;
  int stages = 0;
};

}  // namespace

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
  shape.gemm = p.precision;
  shape.scaling = p.scaling;
  shape.low_precision_act_cache = p.low_precision_act_cache;
  shape.eager_elementwise = p.eager_elementwise;
  shape.act = (p.precision == Precision::fp32 || p.precision == Precision::tf32) ? Precision::fp32
              : p.precision == Precision::fp16                                  ? Precision::fp16
                                                                                 : Precision::bf16;
  if (p.precision == Precision::tf32) shape.act = Precision::tf32;
  return shape;
}

namespace {

MicroBatchShape micro_batch_shape(const TrainContext& ctx, const Plan& p) {
  MicroBatchShape s;
  s.op = train_op_shape(ctx, p);
  const OpShape& shape = s.op;
  s.placement = place_plan(p, ctx.domain_gpus);
  s.act_bytes = precision_bytes(shape.act);
  s.tokens = shape.tokens();
  s.micro_batches = p.micro_batches();
  s.stages = p.pp;
  return s;
}

// Compute and TP/CP/EP communication of one layer of each kind present, for one micro-batch.
std::array<KindCost, kLayerKinds> cost_layer_kinds(Eval& ev, const MicroBatchShape& s) {
  std::array<KindCost, kLayerKinds> kinds{};
  // The first layer of each kind the model has; the scan stops once every kind is costed
  // (a dense model: after its first layer).
  const auto& in_model = ev.ctx.prefix.back();
  int left = 0;
  for (int k = 0; k < kLayerKinds; ++k) left += in_model[static_cast<std::size_t>(k)] > 0 ? 1 : 0;
  for (std::int64_t i = 0; i < ev.ctx.model->layers && left > 0; ++i) {
    const int kind = ev.ctx.layer_kind[static_cast<std::size_t>(i)];
    if (!kinds[static_cast<std::size_t>(kind)].present) {
      kinds[static_cast<std::size_t>(kind)] = cost_kind(ev, i, s.op, s.placement);
      --left;
    }
  }
  return kinds;
}

// Every pipeline rank's load and memory; the slowest rank sets the step, the fullest the memory.
struct PipelineLoad {
  RankLoad worst;
  MemoryBreakdown worst_memory;
  int worst_memory_rank = 0;
  double hw_flops_per_mb = 0;  // all ranks, one micro-batch of one DP replica
  double recompute_flops_per_mb = 0;
  double max_host_bytes = 0;  // optimizer offload: the most host memory any rank's GPU needs
};

PipelineLoad load_ranks(const TrainContext& ctx, const Plan& p, const MicroBatchShape& s, const StateBytes& state,
                        const std::array<KindCost, kLayerKinds>& kinds, const LayerOps& emb, const LayerOps& head) {
  const ModelSpec& m = *ctx.model;
  const int stages = s.stages;
  const int micro_batches = s.micro_batches;
  const int chunks = p.pp * p.vp;
  const double h = d(m.hidden);
  PipelineLoad out;
  // Every pipeline rank: its chunks r, r + p, ... (pipeline_chunk_layers).
  for (int rank = 0; rank < stages; ++rank) {
    RankLoad r;
    std::array<std::int32_t, kLayerKinds> n{};
    for (int v = 0; v < p.vp; ++v) {
      const std::int64_t chunk = rank + static_cast<std::int64_t>(v) * stages;
      const LayerRange range = pipeline_chunk_layers(m.layers, chunks, p.pp_embedding_head_slots, chunk);
      const auto c = kinds_in(ctx, range.begin, range.end);
      for (int k = 0; k < kLayerKinds; ++k) n[static_cast<std::size_t>(k)] += c[static_cast<std::size_t>(k)];
      r.layers += d(range.end - range.begin);
    }
    for (int kind = 0; kind < kLayerKinds; ++kind) {
      const KindCost& k = kinds[static_cast<std::size_t>(kind)];
      const double count = n[static_cast<std::size_t>(kind)];
      if (count == 0) continue;
      r.fwd_s += count * k.fwd_s;
      r.bwd_s += count * k.bwd_s;
      r.recompute_s += count * k.recompute_s;
      r.tp_s += count * k.tp_comm_s;
      r.tp_exposed_s += count * k.tp_exposed_s;
      r.cp_s += count * k.cp_comm_s;
      r.cp_exposed_s += count * k.cp_exposed_s;
      r.ep_s += count * k.ep_comm_s;
      r.ep_exposed_s += count * k.ep_exposed_s;
      r.params += count * k.params;
      r.expert_params += count * k.expert_params;
      r.low_precision_params += count * k.low_precision_params;
      r.stored_bytes += count * k.stored_bytes;
      r.working_bytes = std::max(r.working_bytes, k.working_bytes);
      r.eager_stored_bytes += count * k.eager.stored_bytes;
      r.eager_working_bytes = std::max(r.eager_working_bytes, k.eager.working_bytes);
      r.max_layer_params = std::max(r.max_layer_params, k.params);
      out.hw_flops_per_mb += count * k.hw_flops * p.tp * p.cp;
      out.recompute_flops_per_mb += count * k.recompute_flops * p.tp * p.cp;
    }
    if (rank == 0) add_ops_to_rank(ctx, emb, s.op, r);
    if (rank == stages - 1) {
      add_ops_to_rank(ctx, head, s.op, r);
      // Tied embeddings split over stages keep a copy of the table on the last stage.
      if (m.tied_embeddings && stages > 1) r.params += d(m.vocab) * h / p.tp;
      out.hw_flops_per_mb += (head.fwd_flops() + head.bwd_flops()) * p.tp * p.cp;
    }
    r.tau_s = r.fwd_s + r.bwd_s + r.tp_exposed_s + r.cp_exposed_s + r.ep_exposed_s;
    if (r.tau_s > out.worst.tau_s) out.worst = r;

    // Memory of this rank: micro-batches in flight under 1F1B, or chunks under interleaving
    // (Narayanan et al. 2021; Korthikanti et al. 2022, sec. 4.2.3).
    double in_flight_mb = 0;
    if (p.moe_overlap == MoeOverlap::dualpipe) {
      in_flight_mb = std::min(micro_batches, stages + 1);  // DeepSeek-V3 report, Table 2: PP + 1
    } else if (p.vp == 1) {
      in_flight_mb = std::min(micro_batches, stages - rank);
    } else {
      const double in_flight_chunks = std::min<double>(static_cast<double>(micro_batches) * p.vp,
                                                       2.0 * (stages - rank - 1) + (p.vp - 1.0) * stages + 1);
      in_flight_mb = in_flight_chunks / p.vp;
    }
    MemoryInputs mi;
    mi.dense_params = r.params - r.expert_params;
    mi.expert_params = r.expert_params;
    // FSDP under a pipeline keeps the stage's weights gathered and its gradients unsharded for
    // the whole step (data_parallel_comm): only the optimizer states stay sharded.
    const bool fsdp_in_pipeline = p.zero == 3 && p.pp > 1;
    mi.zero_stage = fsdp_in_pipeline ? 1 : p.zero;
    mi.dense_shard = static_cast<double>(std::min(p.shard_group(), p.dp)) * p.cp;
    mi.expert_shard = std::max(1.0, static_cast<double>(p.tp) * p.cp * p.dp / p.ep);
    mi.bytes = state;
    mi.optimizer_on_host = p.offload_optimizer;
    mi.host_grad_bytes = p.offload_optimizer ? ctx.options.grad_reduce_bytes : 0;
    // Transformer Engine keeps a quantised copy of the low-precision GEMMs' weights (two with
    // 1-D block scales: one per direction; workload/scaling.h). 16-bit plans have none.
    mi.extra_weight_bytes = r.low_precision_params * s.op.gemm_in_bytes() * quantised_weight_copies(p.scaling);
    // DualPipe keeps two copies of the parameters (DeepSeek-V3 report, Table 2): the second
    // copy's weights and gradients; the optimizer updates one.
    if (p.moe_overlap == MoeOverlap::dualpipe) {
      mi.extra_weight_bytes += r.params * (ctx.options.state.weight + ctx.options.state.grad);
    }
    mi.gathered_weight_bytes = 2 * r.max_layer_params * ctx.options.state.weight;
    mi.stored_activation_bytes = r.stored_bytes * in_flight_mb;
    mi.working_activation_bytes = r.working_bytes;
    const FrameworkMemory fm = ctx.framework ? ctx.framework->memory : FrameworkMemory{};
    if (rank == stages - 1) {
      mi.head_buffer_bytes = s.tokens * d(m.vocab) / p.tp * loss_bytes_per_logit(fm, p.eager_elementwise, s.act_bytes);
    }
    // autocast's copies: every matmul weight of the rank (the output head included), not the
    // embedding table, which is looked up, not multiplied (a tied table is cast for the head).
    const bool untied_table = rank == 0 && !m.tied_embeddings;
    mi.weight_copy_bytes = fm.autocast_copy_bytes * std::max(0.0, r.params - (untied_table ? d(m.vocab) * h / p.tp : 0));
    mi.eager_saved_bytes = r.eager_stored_bytes * in_flight_mb + r.eager_working_bytes;
    const double optimizer_shard = p.zero >= 1 ? std::max(1.0, mi.dense_shard) : 1.0;
    mi.optimizer_temp_bytes = fm.optimizer_temp_bytes * r.params / optimizer_shard;
    // One process with its gradients set to None between steps, and one micro-batch per step
    // (with gradient accumulation the first micro-batch's gradients are alive through the
    // others' backward); DDP's buckets and sharded gradient buffers persist.
    mi.grads_freed_between_steps = fm.grads_freed_between_steps && p.gpus() == 1 && micro_batches == 1;
    // A single GPU has no NCCL communicator, so no NCCL buffers (unless the user set the
    // runtime overhead with --overhead-gib).
    mi.runtime_bytes = ctx.runtime_overhead_bytes -
                       (p.gpus() == 1 && ctx.options.runtime_overhead_bytes < 0 ? ctx.efficiency->nccl_buffer_bytes : 0);
    mi.fragmentation_fraction = ctx.fragmentation_fraction;
    const MemoryBreakdown mem = memory_per_gpu(mi);
    out.max_host_bytes = std::max(out.max_host_bytes, mem.host_bytes);
    if (mem.total_bytes > out.worst_memory.total_bytes) {
      out.worst_memory = mem;
      out.worst_memory_rank = rank;
    }
  }
  return out;
}

// Data parallelism: gradient reduction and (ZeRO/FSDP) parameter gathers of the slowest rank.
CommCost data_parallel_comm(Eval& ev, const MicroBatchShape& s, const RankLoad& worst) {
  const TrainContext& ctx = ev.ctx;
  const Plan& p = ev.plan;
  const Placement& pl = s.placement;
  const int micro_batches = s.micro_batches;
  const double dense_params = worst.params - worst.expert_params;
  const double grad_bytes = dense_params * ctx.options.grad_reduce_bytes;
  const double expert_grad_bytes = worst.expert_params * ctx.options.grad_reduce_bytes;
  const double weight_bytes = dense_params * ctx.options.state.weight;
  const double one_fwd = worst.fwd_s;
  const double one_bwd = worst.bwd_s;
  CommCost dp;
  const bool hsdp = p.shard_group() < p.dp;
  const double replica_ar = hsdp ? ev.coll(CollectiveOp::all_reduce, grad_bytes / (p.shard_group() * p.cp), pl.replica) : 0;
  const double expert_ar = ev.coll(CollectiveOp::all_reduce, expert_grad_bytes, pl.expert_dp);
  if (p.zero == 0) {
    // DDP: bucketed AllReduce overlapped with the last micro-batch's backward.
    dp.total_s = ev.coll(CollectiveOp::all_reduce, grad_bytes, pl.grad) + expert_ar;
    dp.exposed_s = std::max(0.0, dp.total_s - one_bwd);
  } else if (p.zero <= 2 || p.pp > 1) {
    // Distributed optimizer: ReduceScatter gradients after the last backward, AllGather the
    // updated weights before the next forward; both overlapped with that micro-batch.
    // FSDP under a pipeline schedule does the same: PyTorch's pipelining keeps a stage's
    // weights gathered and its gradients unsharded across the micro-batches of a step and
    // reduce-scatters at the last backward (torch.distributed.pipelining: reshard and gradient
    // sync only on the last micro-batch; torchtitan: no reshard after forward with PP; Llama 3,
    // arXiv:2407.21783 sec. 3.3.1: no reshard after forward, to avoid the backward all-gather).
    const GroupPlacement& g = hsdp ? pl.shard : pl.grad;
    const double rs = ev.coll(CollectiveOp::reduce_scatter, grad_bytes, g) + replica_ar + expert_ar;
    const double ag = ev.coll(CollectiveOp::all_gather, weight_bytes, g);
    dp.total_s = rs + ag;
    dp.exposed_s = std::max(0.0, rs - one_bwd) + std::max(0.0, ag - one_fwd);
  } else {
    // FSDP / ZeRO-3 without a pipeline: every micro-batch gathers each unit's weights (one
    // transformer layer, the wrapping FSDP, torchtitan and llm-foundry use) for its forward and
    // again for its backward, and reduce-scatters its gradients, each unit one collective
    // prefetched behind the neighbouring unit's compute (fsdp_micro_batch_cost).
    const double units = std::max(1.0, worst.layers);
    const double ag = ev.coll(CollectiveOp::all_gather, weight_bytes / units, pl.shard);
    const double rs = ev.coll(CollectiveOp::reduce_scatter, grad_bytes / units, pl.shard);
    const CommCost mb = fsdp_micro_batch_cost(units, ag, rs, one_fwd / units, one_bwd / units);
    dp.total_s = mb.total_s * micro_batches + replica_ar + expert_ar;
    dp.exposed_s = mb.exposed_s * micro_batches + replica_ar + std::max(0.0, expert_ar - one_bwd);
  }
  return dp;
}

// Pipeline: activations (1/tp of them with SP, as Megatron scatters them) between stages,
// forward and backward, for every micro-batch and chunk.
CommCost pipeline_comm(Eval& ev, const MicroBatchShape& s) {
  const Plan& p = ev.plan;
  CommCost pp;
  if (s.stages > 1) {
    const double bytes = s.tokens * d(ev.ctx.model->hidden) * s.act_bytes / (s.op.sp ? p.tp : 1);
    const double one =
        ev.coll(CollectiveOp::send_recv, bytes, place_group(2, p.tp * p.cp * p.dp, ev.ctx.domain_gpus));
    pp.total_s = 2.0 * p.vp * (s.micro_batches + s.stages - 1) * one;
    // 1F1B waits on each transfer; the interleaved schedule overlaps them except in the fill.
    pp.exposed_s = p.vp == 1 ? pp.total_s : 2.0 * p.vp * (s.stages - 1) * one;
  }
  return pp;
}

// The parameters of this GPU's optimizer shard (all of the rank's without ZeRO).
double optimizer_shard_params(const Plan& p, const RankLoad& worst) {
  const double dense_params = worst.params - worst.expert_params;
  const double shard = p.zero >= 1 ? static_cast<double>(std::min(p.shard_group(), p.dp)) * p.cp : 1.0;
  const double expert_shard = p.zero >= 1 ? std::max(1.0, static_cast<double>(p.tp) * p.cp * p.dp / p.ep) : 1.0;
  return dense_params / shard + worst.expert_params / expert_shard;
}

// Bytes Adam moves per parameter: it reads the gradient and the fp32 master weight and
// moments, writes them back and the 16-bit weight (memory-bound, on the GPU or the host).
double optimizer_bytes_per_param(const StateBytes& state) { return state.grad + 2 * state.optimizer + state.weight; }

// Optimizer step on the GPU: one fused streaming kernel, at its measured share of the HBM
// bandwidth where the family has one (cost/roofline.h), else the memory-bound kernels'.
double optimizer_step_s(const TrainContext& ctx, const Plan& p, const StateBytes& state, const RankLoad& worst) {
  // An fp32 model's weights are the master copy, read and written by the step (fused AdamW: the
  // fp32 weights, m and v read and written, the fp32 gradient read: 28 B per parameter); the
  // reference's 16-bit working weights are only written.
  const double master_rw = ctx.framework && ctx.framework->memory.fp32_model ? state.weight : 0;
  const double bw = ctx.device.optimizer_bw_bytes_per_s > 0 ? ctx.device.optimizer_bw_bytes_per_s
                                                             : ctx.device.memory_bw_bytes_per_s;
  return optimizer_shard_params(p, worst) * (optimizer_bytes_per_param(state) + master_rw) / bw;
}

// Optimizer offload: the same bytes over the host's DRAM at this GPU's share of it (the GPUs of
// the plan on one host split it), the transfers over the GPU's host link.
OffloadCost offload_step(const TrainContext& ctx, const Plan& p, const StateBytes& state, const RankLoad& worst) {
  const double gpus_on_host = std::max(1, std::min(ctx.host_gpus, p.gpus()));
  return optimizer_offload_cost(optimizer_shard_params(p, worst), ctx.options.grad_reduce_bytes, state.weight,
                                optimizer_bytes_per_param(state), ctx.host_link_bw_bytes_per_s,
                                ctx.host_memory_bw_bytes_per_s / gpus_on_host, worst.bwd_s);
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
                             : (stages - 1.0) / p.vp * tau;
  const double step = micro_batches * tau + bubble_s + dp.exposed_s + pp.exposed_s + optimizer_s +
                      offload.grads.exposed_s + offload.weights.exposed_s;

  est.gpus = p.gpus();
  est.micro_batches = micro_batches;
  est.tokens_per_step = static_cast<double>(p.global_batch_seqs()) * s.op.seq_len;
  est.step_time_s = step;
  est.tokens_per_s = est.tokens_per_step / step;
  est.tokens_per_s_per_gpu = est.tokens_per_s / est.gpus;
  // Model FLOPs: 6N + causal attention per token (workload/params.h), N the weights a token multiplies.
  est.model_flops_per_step =
      est.tokens_per_step * train_flops_per_token(m, ctx.matmul_active_params, static_cast<std::int64_t>(s.op.seq_len));
  est.hardware_flops_per_step = load.hw_flops_per_mb * micro_batches * p.dp;
  const double peak = ctx.gpu->dense(p.precision);
  est.tflops_per_gpu = est.model_flops_per_step / step / est.gpus / 1e12;
  est.mfu = est.model_flops_per_step / (step * est.gpus * peak);
  // HFU counts the recomputed forward too (Korthikanti et al. 2022, sec. 6).
  est.hfu = (est.model_flops_per_step + load.recompute_flops_per_mb * micro_batches * p.dp) / (step * est.gpus * peak);
  est.bubble_fraction = p.moe_overlap != MoeOverlap::dualpipe ? (stages - 1.0) / (p.vp * static_cast<double>(micro_batches))
                        : tau > 0                              ? bubble_s / (micro_batches * tau)
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
Estimate evaluate(const TrainContext& ctx, const Plan& plan) {
  Estimate est;
  Eval ev{ctx, plan, est};
  check_structure(ev);
  if (!ev.ok) return est;
  const MicroBatchShape shape = micro_batch_shape(ctx, plan);
  const std::array<KindCost, kLayerKinds> kinds = cost_layer_kinds(ev, shape);
  LayerOps emb;
  LayerOps head;
  build_embedding_ops(*ctx.model, shape.op, emb);
  build_head_ops(*ctx.model, shape.op, head);
  if (!ev.ok) return est;
  // Bytes per parameter at the plan's optimizer-state precision (ctx.options.state at 32 bits).
  const StateBytes state = with_optimizer_state_bits(ctx.options.state, plan.optimizer_state_bits);
  const PipelineLoad load = load_ranks(ctx, plan, shape, state, kinds, emb, head);
  const CommCost dp = data_parallel_comm(ev, shape, load.worst);
  const CommCost pp = pipeline_comm(ev, shape);
  if (!ev.ok) return est;
  // Offloaded, the step runs on the CPU and the transfers are added; otherwise on the GPU.
  const OffloadCost offload = plan.offload_optimizer ? offload_step(ctx, plan, state, load.worst) : OffloadCost{};
  const double optimizer_s =
      plan.offload_optimizer ? offload.cpu_step_s : optimizer_step_s(ctx, plan, state, load.worst);
  assemble(ctx, plan, shape, load, dp, pp, optimizer_s, offload, est);
  return est;
}

}  // namespace gpuplan
