// One layer's cost for one micro-batch on one GPU: its ops' compute (issue-bound against the
// host), the recompute the plan asks for, and the TP, CP and EP communication beside it, exposed
// or hidden; and the embedding's and head's time for the pipeline ranks that hold them.
// Formulas: docs/model/training.md.
#include <algorithm>
#include <cstring>
#include <new>

#include "cost/checkpoint_recompute.h"
#include "cost/eager_kernels.h"
#include "cost/framework_memory.h"
#include "plan/cuda_graphs.h"
#include "plan/comm_config.h"
#include "plan/evaluate_internal.h"
#include "plan/moe_dispatch.h"
#include "workload/mtp_ops.h"
#include "workload/ops_mixer.h"
#include "workload/size_math.h"
#include "workload/tp_reductions.h"

namespace gpuplan::train_eval {
namespace {

using size_math::d;

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

// cost_kind's running sums over a layer's ops, as they stand after its mixer's ops: a kind
// with the same mixer (same ops, same times, same order) starts its sums from them instead of
// adding its mixer's ops again (the same additions in the same order, so the same doubles).
// No initializers: set whole when taken (`set` by cost_kind before anything reads it).
struct MixerSums {
  bool set;    // taken (the kind had mixer ops)
  bool eager;  // the host times had the eager kernels' added (eager_kernels)
  double fwd_s;
  double bwd_s;
  double host_fwd_s;
  double host_bwd_s;
  double attn_fwd_s;
  double attn_bwd_s;
  double gemm_s;
  double selective_s;
  double selective_host_s;
  double selective_flops;
  double cache_recompute_s;
  double cache_recompute_host_s;
  double params;
  double expert_params;
  double low_precision_params;
  double hw_flops;
};

// One layer kind's ops and their op_time, kept for the next kind costed: an op the two share
// (same_op_time_inputs) is timed once. Left unconstructed but for what cost_kind fills.
struct KindOpTimes {
  KindOpTimes() {}              // NOLINT(modernize-use-equals-default)
  std::int64_t layer_idx = -1;  // the layer whose ops these are
  MixerPrefix mixer;            // where its mixer's ops end
  MixerSums mixer_sums;         // the sums after them
  LayerOps ops;
  union {
    std::array<OpTime, kMaxLayerOps> times;
  };
};

// Reads neither the plan's ZeRO stage nor its sharding group: a search's memo reuses these
// costs across them (plan/eval_memo.h, TrainLayerMemo). `previous`: the kind costed before
// this one under the same plan, or null.
// `next`: another kind is costed after this one (which may start from its MixerSums).
KindCost cost_kind(Eval& ev, std::int64_t layer_idx, const OpShape& shape, const Placement& pl,
                   const KindOpTimes* previous, KindOpTimes& mine, bool next) {
  const TrainContext& ctx = ev.ctx;
  const ModelSpec& m = *ctx.model;
  const Plan& p = ev.plan;
  KindCost k;
  LayerOps& ops = mine.ops;
  mine.layer_idx = layer_idx;
  // A kind with the previous kind's mixer takes its mixer ops and their times as they are
  // (build_layer_ops_after_mixer); the ops after them are compared one by one.
  const bool same_mixer = previous != nullptr && same_mixer_ops(m, previous->layer_idx, layer_idx);
  int known_slots = 0;
  if (same_mixer) {
    mine.mixer = previous->mixer;
    known_slots = mine.mixer.count;
    const auto known = static_cast<std::size_t>(known_slots);
    std::memcpy(static_cast<void*>(ops.ops.data()), previous->ops.ops.data(), known * sizeof(Op));
    build_layer_ops_after_mixer(m, layer_idx, shape, mine.mixer, ops);
  } else {
    build_layer_ops(m, layer_idx, shape, ops, mine.mixer);
  }
  const int shared_slots = previous != nullptr ? previous->ops.count : 0;
  double attn_bwd_s = 0;
  double gemm_s = 0;
  double host_fwd_s = 0;
  double host_bwd_s = 0;
  double pre_sync_fwd_s = 0;  // forward GPU and host time of the ops before a host sync
  double pre_sync_host_s = 0;
  double pre_sync_bwd_s = 0;  // backward GPU time of the same ops (Megatron-Core's attention node)
  double selective_s = 0;
  double selective_host_s = 0;
  double selective_flops = 0;
  double cache_recompute_s = 0;  // MoE SwiGLU outputs the low-precision cache does not keep
  double cache_recompute_host_s = 0;
  // Eager layers issue kernel by kernel (cost/eager_kernels.h); the recompute of an
  // early-stopping checkpoint ends before the op at `recompute_ops` (cost/checkpoint_recompute.h).
  const Framework* fw = ctx.framework;
  const bool eager_kernels = fw != nullptr && shape.eager_elementwise && fw->eager_kernels.host_s_per_kernel > 0 &&
                             eager_kernels_apply(m) && !m.is_moe_layer(layer_idx);
  const int recompute_ops = fw != nullptr && fw->recompute_early_stop && p.recompute == Recompute::full
                                ? early_stop_recompute_ops(ops)
                                : ops.count;
  // The partial sums below are kept only where the recompute reads them (after the loop): the
  // early stop's under full recompute of a layer without a host sync, the selective ops' under
  // selective recompute or the low-precision activation cache.
  const bool early_stop = p.recompute == Recompute::full && recompute_ops < ops.count && ops.host_sync_at < 0;
  const int early_stop_ops = early_stop ? recompute_ops : 0;
  const bool selective_sums =
      p.recompute == Recompute::selective ||
      (p.recompute == Recompute::none && shape.low_precision_act_cache && shape.gemm != shape.act);
  double early_stop_fwd_s = 0;
  double early_stop_host_s = 0;
  double early_stop_flops = 0;
  // Megatron-Core's recompute modules (Plan::recompute_modules): the forward of the ops they
  // cover, rerun in the backward, beyond what selective recompute already reruns. Full
  // recompute reruns everything anyway.
  const std::uint8_t modules = p.recompute == Recompute::full ? 0 : p.recompute_modules;
  double module_s = 0;
  double module_host_s = 0;
  double module_flops = 0;
  // CUDA graphs (Plan::cuda_graph_scope, plan/cuda_graphs.h): the captured ops cost the host
  // nothing each; their region one graph launch per pass, added after the loop.
  // (Most plans have no scope: no call per kind for them on the search's hot path.)
  const GraphedOps graphed =
      p.cuda_graph_scope != 0 ? graphed_ops(m, layer_idx, ops, mine.mixer.count, p.cuda_graph_scope) : GraphedOps{};
  // The mixer's ops summed by the previous kind (MixerSums), where every sum below over them is
  // one of its sums: the same eager host times, the host synchronisation (a MoE block's) and
  // the early stop of recompute after the mixer or absent. The pre-sync and early-stop sums
  // over the mixer are then the forward's (the same additions from 0 in the same order).
  int first_op = 0;
  mine.mixer_sums.set = false;
  // MixerSums carries no recompute-module sums and no graphed host times: a plan with
  // modules or CUDA graphs sums every op itself.
  if (modules == 0 && p.cuda_graph_scope == 0 && same_mixer && known_slots > 0 && previous->mixer_sums.set &&
      previous->mixer_sums.eager == eager_kernels && (ops.host_sync_at < 0 || ops.host_sync_at >= known_slots) &&
      (early_stop_ops == 0 || early_stop_ops >= known_slots)) {
    const MixerSums& q = previous->mixer_sums;
    mine.mixer_sums = q;
    k.fwd_s = q.fwd_s;
    k.bwd_s = q.bwd_s;
    host_fwd_s = q.host_fwd_s;
    host_bwd_s = q.host_bwd_s;
    k.attn_fwd_s = q.attn_fwd_s;
    attn_bwd_s = q.attn_bwd_s;
    gemm_s = q.gemm_s;
    if (selective_sums) {
      selective_s = q.selective_s;
      selective_host_s = q.selective_host_s;
      selective_flops = q.selective_flops;
      cache_recompute_s = q.cache_recompute_s;
      cache_recompute_host_s = q.cache_recompute_host_s;
    }
    k.params = q.params;
    k.expert_params = q.expert_params;
    k.low_precision_params = q.low_precision_params;
    k.hw_flops = q.hw_flops;
    if (ops.host_sync_at >= known_slots) {
      pre_sync_fwd_s = q.fwd_s;
      pre_sync_host_s = q.host_fwd_s;
      pre_sync_bwd_s = q.bwd_s;
    }
    if (early_stop_ops >= known_slots) {
      early_stop_fwd_s = q.fwd_s;
      early_stop_host_s = q.host_fwd_s;
      for (int i = 0; i < known_slots; ++i) early_stop_flops += ops.ops[static_cast<std::size_t>(i)].fwd_flops;
    }
    std::memcpy(static_cast<void*>(mine.times.data()), previous->times.data(),
                static_cast<std::size_t>(known_slots) * sizeof(OpTime));
    first_op = known_slots;
  }
  // One op's terms, in op order (run over two stretches: the mixer's ops, whose sums are
  // kept for the next kind, then the rest).
  const auto add_op = [&](int i) __attribute__((always_inline)) {
    const Op& op = ops.ops[static_cast<std::size_t>(i)];
    const auto slot = static_cast<std::size_t>(i);
    // An op equal to the previous kind's (the mixer's ops, copied from it, without comparing)
    // takes its time; a timed op's OpTime is returned straight into its slot.
    if (i < shared_slots && (i < known_slots || same_op_time_inputs(previous->ops.ops[slot], op))) {
      mine.times[slot] = previous->times[slot];
    } else {
      ::new (&mine.times[slot]) OpTime(op_time(ctx.device, op, shape.gemm, shape.act));
    }
    OpTime t = mine.times[slot];
    if (eager_kernels) eager_host_time_s(fw->eager_kernels, op, t.host_fwd_s, t.host_bwd_s);
    // (No scope: GraphedOps{} holds no op; the test is skipped, not evaluated per op.)
    if (p.cuda_graph_scope != 0 && graphed.contains(i)) t.host_fwd_s = t.host_bwd_s = 0;
    if (i < early_stop_ops) {
      early_stop_fwd_s += t.fwd_s;
      early_stop_host_s += t.host_fwd_s;
      early_stop_flops += op.fwd_flops;
    }
    if (i < ops.host_sync_at) {
      pre_sync_fwd_s += t.fwd_s;
      pre_sync_host_s += t.host_fwd_s;
      pre_sync_bwd_s += t.bwd_s;
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
    if (selective_sums && op.selective) {
      selective_s += t.fwd_s;
      selective_host_s += t.host_fwd_s;
      selective_flops += op.fwd_flops;
      if (op.group == OpGroup::moe && op.kind == OpKind::memory) {
        cache_recompute_s += t.fwd_s;
        cache_recompute_host_s += t.host_fwd_s;
      }
    }
    if ((op.modules & modules) != 0 && !(p.recompute == Recompute::selective && op.selective)) {
      module_s += t.fwd_s;
      module_host_s += t.host_fwd_s;
      module_flops += op.fwd_flops;
    }
    k.params += op.params;
    if (op.routed_expert) k.expert_params += op.params;
    if (op.low_precision) k.low_precision_params += op.params;
    k.hw_flops += op.fwd_flops + op.bwd_flops;
  };
  // Where the sums are kept for the next kind: after the mixer, when this kind sums it.
  const int mixer_end = next && first_op == 0 && mine.mixer.count > 0 ? mine.mixer.count : first_op;
  for (int i = first_op; i < mixer_end; ++i) add_op(i);
  if (mixer_end > first_op) {
    MixerSums& q = mine.mixer_sums;
    q.set = true;
    q.eager = eager_kernels;
    q.fwd_s = k.fwd_s;
    q.bwd_s = k.bwd_s;
    q.host_fwd_s = host_fwd_s;
    q.host_bwd_s = host_bwd_s;
    q.attn_fwd_s = k.attn_fwd_s;
    q.attn_bwd_s = attn_bwd_s;
    q.gemm_s = gemm_s;
    q.selective_s = selective_s;
    q.selective_host_s = selective_host_s;
    q.selective_flops = selective_flops;
    q.cache_recompute_s = cache_recompute_s;
    q.cache_recompute_host_s = cache_recompute_host_s;
    q.params = k.params;
    q.expert_params = k.expert_params;
    q.low_precision_params = k.low_precision_params;
    q.hw_flops = k.hw_flops;
  }
  for (int i = mixer_end; i < ops.count; ++i) add_op(i);
  if (graphed.launches_per_pass > 0) {
    const double launch_s = graphed.launches_per_pass * ctx.device.kernel_launch_s;
    host_fwd_s += launch_s;
    host_bwd_s += launch_s;
    // A region captured before the host sync (attention, router) launches before it.
    if (graphed.begin < ops.host_sync_at) pre_sync_host_s += launch_s;
  }
  // The host issues kernels ahead of the GPU; a pass takes the slower of the two. A host-device
  // synchronisation (a dropless MoE layer's token counts, LayerOps::host_sync_at) empties the
  // launch queue: the host cannot issue the kernels after it while the GPU runs those before
  // it, so the forward is two stretches, each the slower of GPU and host. The backward reuses
  // the counts and runs ahead as one stretch.
  k.fwd_s = ops.host_sync_at < 0 ? issue_bound_s(k.fwd_s, host_fwd_s)
                                 : issue_bound_s(pre_sync_fwd_s, pre_sync_host_s) +
                                       issue_bound_s(k.fwd_s - pre_sync_fwd_s, host_fwd_s - pre_sync_host_s);
  const double bwd_gpu_s = k.bwd_s;
  k.bwd_s = issue_bound_s(k.bwd_s, host_bwd_s);
  const double fwd_compute_s = k.fwd_s;
  if (early_stop) {
    k.recompute_s = issue_bound_s(early_stop_fwd_s, early_stop_host_s);
    k.recompute_flops = early_stop_flops;
  } else if (p.recompute == Recompute::full) {
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
  if (modules != 0) {
    k.recompute_s += issue_bound_s(module_s, module_host_s);
    k.recompute_flops += module_flops;
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
    // Hybrid layers, parallel blocks and MoE layers: workload/tp_reductions.h.
    const double blocks = tp_reductions(m, layer_idx, MoeFfnReduction::shared_experts_only);
    const double bytes = tokens * h * a;
    const double one =
        p.sp ? ev.coll(CollectiveOp::all_gather, bytes, pl.tp) + ev.coll(CollectiveOp::reduce_scatter, bytes, pl.tp)
             : ev.coll(CollectiveOp::all_reduce, bytes, pl.tp);
    k.tp_comm_s = blocks * one * (fwd_passes + 1);
    // Hidden at most behind the layer's GEMMs, and only the share the software overlaps.
    // The overlap (Transformer Engine userbuffers, Megatron's TP comm overlap) works over
    // NVLink peer memory inside one scale-up domain; a TP group that spans domains waits on
    // the network, so its communication is exposed.
    // A framework with its own TP overlap (torchtitan's AsyncTP) hides its own share.
    const bool overlappable = p.tp_comm_overlap && !pl.tp.crosses_domains();
    const double share = ctx.framework && ctx.framework->tp_comm_overlap_fraction >= 0
                             ? ctx.framework->tp_comm_overlap_fraction
                             : ctx.efficiency->tp_comm_overlap_fraction;
    const double hidden = overlappable ? std::min(gemm_s, k.tp_comm_s * share) : 0;
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
      kv_width =
          d(m.heads) / p.tp * d(m.mla_shape.qk_nope_head_dim + m.mla_shape.qk_rope_head_dim + m.mla_shape.v_head_dim);
    } else {
      kv_width = std::max(1.0, d(m.kv_heads) / p.tp) * 2 * d(m.head_dim);
    }
    const double block_bytes = shape.micro_batch * shape.seq_len / p.cp * kv_width * a;
    const GroupPlacement hop = ring_hop(pl.cp);
    const double steps = p.cp - 1;
    // A CP communicator capped to a few NCCL channels (Plan::cp_comm_channels) moves each step
    // at most channels x one channel's point-to-point rate (cp_channel_step_s).
    const double channel_bw = p.cp_comm_channels * ctx.efficiency->p2p_channel_bw_bytes_per_s;
    const double fwd_step = cp_channel_step_s(ev.coll(CollectiveOp::send_recv, block_bytes, hop), block_bytes, channel_bw);
    const double bwd_step =
        cp_channel_step_s(ev.coll(CollectiveOp::send_recv, 2 * block_bytes, hop), 2 * block_bytes, channel_bw);
    const double ring_passes = p.recompute == Recompute::none ? 1 : 2;
    const RingAttentionCost ring =
        ring_attention_cost(steps, fwd_step, bwd_step, k.attn_fwd_s / p.cp, attn_bwd_s / p.cp);
    k.cp_comm_s = ring.fwd_comm_s * ring_passes + ring.bwd_comm_s;
    k.cp_exposed_s = ring.fwd_exposed_s * ring_passes + ring.bwd_exposed_s;
  }
  // Expert parallelism: AllToAll dispatch and combine of every routed token copy (one per
  // chosen expert, or per destination rank with a flex dispatcher), forward and backward (Lepikhin et al. 2020, GShard;
  // DeepSeek-AI 2024, sec. 3.2), over the levels of the topology the EP group spans. The most loaded rank receives
  // `imbalance` times the mean and sets the pace. Hidden, as far as the schedule pairs micro-batches, behind the
  // compute of the same layer (ep_exposed_s).
  if (moe && p.ep > 1) {
    const double rows = tokens / p.tp;
    const double row_bytes = rows * h * std::max(1.0, p.moe_imbalance);  // × copies × element bytes
    // Copies per token: one per chosen expert, or one per destination rank (plan/moe_dispatch.h).
    const double copies = moe_dispatch_copies_per_token(d(m.moe.experts), d(m.moe.top_k), p.ep, p.moe_dispatcher);
    // DeepSeek's dispatch across nodes (moe_fused_dispatch) sends a token over the scale-out
    // network once per destination node, to the GPU of the same local index, which forwards it
    // over NVLink; the two run at once (arXiv:2412.19437 sec. 3.2.2), so the slower sets the
    // time. Node-limited routing caps the nodes (plan/moe_dispatch.h moe_node_dispatch).
    // Megatron-Core's flex dispatcher across nodes runs DeepEP's internode (or HybridEP's RDMA)
    // kernels, the same per-node layout (OpShape::moe_flex_dispatch).
    const bool node_dedup = (shape.moe_fused_dispatch || shape.moe_flex_dispatch) && pl.ep.crosses_domains();
    const MoeNodeDispatch nd = node_dedup ? moe_node_dispatch(d(m.moe.experts), d(m.moe.top_k), pl.ep.domains,
                                                              pl.ep.gpus_per_domain, m.moe.groups, m.moe.group_limit)
                                          : MoeNodeDispatch{};
    const GroupPlacement rail{pl.ep.domains, pl.ep.stride * pl.ep.gpus_per_domain, 1, pl.ep.domains,
                              pl.ep.domain_stride};
    const GroupPlacement in_node{pl.ep.gpus_per_domain, pl.ep.stride, pl.ep.gpus_per_domain, 1, 1};
    // Only the AllToAll dispatcher's exchange runs NCCL's send/receive kernel (torch
    // all_to_all_single: grouped ncclSend/ncclRecv), whose scheduler spreads a peer's bytes over
    // more channels past 16 MiB a part (cost/collective_p2p_channels.h); the flex and DualPipe
    // dispatches run DeepEP's or HybridEP's own kernels (OpShape::moe_layout_dispatch), which
    // that rule does not reach.
    const bool nccl_p2p = !shape.moe_layout_dispatch();
    const auto all_to_all_s = [&](double element_bytes) {
      if (!node_dedup) return ev.coll(CollectiveOp::all_to_all, row_bytes * copies * element_bytes, pl.ep, nccl_p2p);
      return std::max(
          ev.coll(CollectiveOp::all_to_all, row_bytes * nd.nodes_per_token * element_bytes, rail, nccl_p2p),
          ev.coll(CollectiveOp::all_to_all, row_bytes * nd.ranks_per_token * element_bytes, in_node, nccl_p2p));
    };
    const double one = all_to_all_s(a);
    // DeepSeek's fp8 dispatch moves 1-byte tokens forward; combines and every backward
    // AllToAll stay 16-bit (OpShape::moe_fused_dispatch).
    const double dispatch = shape.fp8_moe_dispatch() ? all_to_all_s(precision_bytes(shape.gemm)) : one;
    // The "moe" recompute module reruns the block's forward, its dispatch and combine included
    // (Megatron-Core MoELayer checkpoints the whole forward, moe_layer.py at core_v0.16.0).
    const double ep_fwd_passes = fwd_passes + ((modules & kRecomputeMoe) != 0 ? 1 : 0);
    k.ep_comm_s = (dispatch + one) * ep_fwd_passes + 2 * one;
    const double sm_share = std::min(1.0, ctx.efficiency->moe_comm_sms / ctx.device.sm_count);
    double beside_s = k.fwd_s + k.bwd_s;
    if (p.moe_overlap == MoeOverlap::one_f_one_b && ops.host_sync_at >= 0) {
      // Megatron-Core's combined 1F1B hides each AllToAll behind one node of the other
      // micro-batch only (ep_overlap_pair_s): the layer pair's time beyond its compute is what
      // shows. Nodes: the forward before the host sync is the attention node; the backward
      // splits as the GPU time of the same ops does, the experts' half by half into input and
      // weight gradients (two GEMMs of equal FLOPs each). A recomputed MoE forward's AllToAlls
      // open the backward.
      EpOverlapLayer x;
      x.attn_fwd_s = std::min(fwd_compute_s, issue_bound_s(pre_sync_fwd_s, pre_sync_host_s));
      x.mlp_fwd_s = fwd_compute_s - x.attn_fwd_s;
      x.attn_bwd_s = bwd_gpu_s > 0 ? k.bwd_s * std::min(1.0, pre_sync_bwd_s / bwd_gpu_s) : 0;
      x.mlp_dgrad_s = (k.bwd_s - x.attn_bwd_s) / 2;
      x.mlp_wgrad_s = x.mlp_dgrad_s;
      x.dispatch_fwd_s = dispatch;
      x.combine_fwd_s = one;
      x.dispatch_bwd_s = one;
      x.combine_bwd_s = one + (ep_fwd_passes - 1) * (dispatch + one);
      beside_s = k.ep_comm_s - (ep_overlap_pair_s(x) - x.compute_s());
    }
    k.ep_exposed_s = ep_exposed_s(k.ep_comm_s, beside_s, moe_paired_fraction(p), sm_share);
  }

  const LayerActivations act = layer_activations(m, layer_idx, shape, p.recompute, p.recompute_modules);
  k.stored_bytes = act.stored_bytes;
  k.working_bytes = act.working_bytes;
  k.eager = eager_saved_activations(ctx.framework ? ctx.framework->memory : FrameworkMemory{}, m, layer_idx, shape,
                                    p.recompute);
  return k;
}

// layer_time, LayerOps::params, fwd_flops and bwd_flops in one pass (each sum in op order, as
// those add them).
EdgeCost edge_cost(const TrainContext& ctx, const LayerOps& ops, const OpShape& shape) {
  EdgeCost e;
  double fwd_flops = 0;
  double bwd_flops = 0;
  for (const Op& op : ops) {
    const OpTime t = op_time(ctx.device, op, shape.gemm, shape.act);
    e.time.fwd_s += t.fwd_s;
    e.time.bwd_s += t.bwd_s;
    e.time.host_fwd_s += t.host_fwd_s;
    e.time.host_bwd_s += t.host_bwd_s;
    e.params += op.params;
    fwd_flops += op.fwd_flops;
    bwd_flops += op.bwd_flops;
  }
  e.flops = fwd_flops + bwd_flops;
  return e;
}

}  // namespace

void cost_layers(Eval& ev, const MicroBatchShape& s, LayerCosts& costs) {
  // The first layer of each kind the model has, in layer order (the order a failure is found
  // and the collectives are asked in).
  const TrainContext& ctx = ev.ctx;
  std::array<KindOpTimes, 2> op_times;
  for (int i = 0; i < ctx.present_kind_count; ++i) {
    const std::size_t kind = ctx.kinds_in_layer_order[static_cast<std::size_t>(i)];
    const KindOpTimes* previous = i > 0 ? &op_times[static_cast<std::size_t>((i - 1) % 2)] : nullptr;
    ::new (&costs.kinds[kind])
        KindCost(cost_kind(ev, ctx.first_layer_of_kind[kind], s.op, s.placement, previous,
                           op_times[static_cast<std::size_t>(i % 2)], i + 1 < ctx.present_kind_count));
  }
  LayerOps emb;
  build_embedding_ops(*ev.ctx.model, s.op, emb);
  costs.embedding = edge_cost(ev.ctx, emb, s.op);
  LayerOps head;
  build_head_ops(*ev.ctx.model, s.op, head);
  costs.head = edge_cost(ev.ctx, head, s.op);
  // The multi-token-prediction block's own ops, once per depth (its layer is the model's last
  // layer's kind, which load_ranks adds from `kinds`).
  costs.mtp = EdgeCost{};
  if (ev.plan.mtp_layers > 0) {
    build_mtp_ops(*ev.ctx.model, s.op, head);
    const EdgeCost one = edge_cost(ev.ctx, head, s.op);
    const double depths = ev.plan.mtp_layers;
    costs.mtp.time.fwd_s = depths * one.time.fwd_s;
    costs.mtp.time.bwd_s = depths * one.time.bwd_s;
    costs.mtp.time.host_fwd_s = depths * one.time.host_fwd_s;
    costs.mtp.time.host_bwd_s = depths * one.time.host_bwd_s;
    costs.mtp.params = depths * one.params;
    costs.mtp.flops = depths * one.flops;
  }
}

}  // namespace gpuplan::train_eval
