// The training evaluator's phases (plan/evaluate.cpp orchestrates them), shared by the files
// that hold one phase each: structure check (plan/train_structure.cpp), per-layer compute and
// TP/CP/EP communication (plan/layer_cost.cpp), per-rank load and memory (plan/rank_load.cpp),
// data-parallel, pipeline and optimizer costs (plan/step_comm.cpp). Internal to plan/: other
// folders include plan/evaluate.h.
#pragma once

#include <algorithm>
#include <array>
#include <cstdio>

#include "plan/evaluate.h"
#include "workload/ops.h"

namespace gpuplan {
class TrainCollectiveMemo;
}

namespace gpuplan::train_eval {

// Per-kind costs of one layer for one micro-batch on one GPU, under one plan.
struct KindCost {
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
  TrainCollectiveMemo* memo = nullptr;  // a search worker's (plan/eval_memo.h); null = none
  bool ok = true;
  // Without a memo, the last collective asked (TP with SP asks AllGather, then ReduceScatter of
  // the same buffer: same_collective_time, cost/collective.h).
  bool has_last = false;
  CollectiveRequest last_request{};
  CollectiveTime last_time{};

  void fail(const char* fmt, auto... args) {
    if (!ok) return;
    ok = false;
    std::array<char, Infeasibility::kCapacity> text{};
    std::snprintf(text.data(), text.size(), fmt, args...);
    est.verdict.set(Infeasibility::Kind::invalid_plan, text.data());
  }

  // One collective over a group; 0 for a group of one. `nccl_p2p` false: an AllToAll run by
  // DeepEP's or HybridEP's kernels, not NCCL's send/receive (CollectiveRequest::nccl_p2p).
  double coll(CollectiveOp op, double bytes, const GroupPlacement& g, bool nccl_p2p = true) {
    if (g.size <= 1 || bytes <= 0) return 0;
    CollectiveRequest r = collective_request(op, bytes, g);
    r.nccl_p2p = nccl_p2p;
    const CollectiveTime e = collective_time(r);
    if (!e.feasible) {
      fail("%s over %d GPUs: %s", op_name(op).data(), g.size, e.reason);
      return 0;
    }
    return e.time_s;
  }

  // Without a memo, inline (five per plan): the last answer for a twin of the last request.
  CollectiveTime collective_time(const CollectiveRequest& r) {
    if (memo != nullptr) return memo_collective_time(r);
    if (!has_last || !same_collective_time(r, last_request)) {
      last_time = estimate_collective_time(r, ctx.topology);
      last_request = r;
      has_last = true;
    }
    return last_time;
  }
  CollectiveTime memo_collective_time(const CollectiveRequest& r);  // through the memo (plan/eval_memo.h)
};

// The embedding's or the output head's time and parameters for one micro-batch on one GPU.
struct EdgeCost {
  OpTime time;
  double params = 0;
  double flops = 0;  // forward + backward
};

// What every layer of a plan costs for one micro-batch: one decoder layer of each kind the
// model has (TrainContext::present_kinds), the embedding and the head.
struct LayerCosts {
  // Only the model's kinds are set and read: the others are left unconstructed, so that a
  // plan does not clear eleven of them (most models have one or two kinds).
  LayerCosts() {}  // NOLINT(modernize-use-equals-default)
  union {
    std::array<KindCost, kLayerKinds> kinds;
  };
  EdgeCost embedding;
  EdgeCost head;
  // The multi-token-prediction block's own ops (workload/mtp_ops.h: its norms, eh_proj, the
  // second head pass and loss) for Plan::mtp_layers depths; its decoder layer is one more layer
  // of the model's last layer's kind (kinds), added on the rank that holds it. Zero without MTP.
  EdgeCost mtp;
};

// The shapes one micro-batch runs at under the plan, and where its groups sit.
struct MicroBatchShape {
  OpShape op;
  Placement placement;
  double act_bytes = 0;  // bytes per activation element
  double tokens = 0;     // tokens of one micro-batch on one GPU's slice
  int micro_batches = 0;
  int stages = 0;
};

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
  double offload_s = 0, offload_exposed_s = 0;  // activation offload, one micro-batch (activation_offload.h)
  double mtp_s = 0;  // the MTP block's forward + backward, one micro-batch (0 off its rank)

  // One micro-batch's forward + backward + exposed communication on the rank: what the
  // schedule waits for (the step's τ where this is the slowest rank).
  double busy_s() const { return fwd_s + bwd_s + tp_exposed_s + cp_exposed_s + ep_exposed_s + offload_exposed_s; }

  // The low-precision GEMM parameters outside the routed experts: every routed expert's weight
  // is a low-precision GEMM's, so the experts count first (fp8 primary weights keep both kinds
  // in fp8 only; the memory and the DP weight gather split them this way).
  double low_precision_dense_params() const {
    return std::max(0.0, low_precision_params - std::min(expert_params, low_precision_params));
  }
};

// Every pipeline rank's load and memory; the slowest rank sets the step, the fullest the memory.
struct PipelineLoad {
  RankLoad worst;
  // Σ_i (τ_max − τ_i) over the pipeline ranks, one micro-batch (τ_i: every chunk of rank i):
  // what an uneven split takes off the even split's bubble (pipeline_bubble_s). Exactly 0 when
  // every rank's τ is the same, so an even split's bubble is today's to the bit.
  double tau_slack_s = 0;
  double tau_max_s = 0;  // the running maximum of the ranks' τ added so far (= worst.tau_s at the end)
  int ranks_added = 0;

  // Adds rank i's τ_i; a new maximum charges the gap to every rank added before it.
  void add_rank_tau(double tau_s) {
    if (tau_s > tau_max_s) {
      tau_slack_s += (tau_s - tau_max_s) * ranks_added;
      tau_max_s = tau_s;
    } else {
      tau_slack_s += tau_max_s - tau_s;
    }
    ++ranks_added;
  }
  // Adds `count` ranks of the same τ at once (a rank class's interior ranks, rank_load.cpp):
  // add_rank_tau `count` times, the equal gaps summed by one product (the same sum but for the
  // rounding of its last digit; still exactly 0 when every τ is the same).
  void add_rank_taus(double tau_s, int count) {
    if (tau_s > tau_max_s) {
      tau_slack_s += (tau_s - tau_max_s) * ranks_added;
      tau_max_s = tau_s;
    } else {
      tau_slack_s += (tau_max_s - tau_s) * count;
    }
    ranks_added += count;
  }
  MemoryBreakdown worst_memory;
  int worst_memory_rank = 0;
  double hw_flops_per_mb = 0;  // all ranks, one micro-batch of one DP replica
  double recompute_flops_per_mb = 0;
  double max_host_bytes = 0;  // optimizer offload: the most host memory any rank's GPU needs
};

// The 1F1B bubble of p stages whose rank i takes τ_i per micro-batch (forward + backward),
// interleaved over v chunks per rank. One micro-batch's first chunk fills the pipeline and its
// last drains it, one chunk (τ_i / v) per rank; in between the schedule runs at the slowest
// rank's τ_max, so the step is m·τ_max + (Σ_i τ_i − τ_max) / v, i.e. a bubble of
//   ((p − 1)·τ_max − Σ_i (τ_max − τ_i)) / v,
// which for equal τ_i is Narayanan et al. 2021 sec. 2.2's (p − 1)·(t_f + t_b) / v (the
// interleaved schedule's, Megatron-Core forward_backward_pipelining_with_interleaving; v = 1
// is forward_backward_pipelining_without_interleaving). `tau_slack_s` = Σ_i (τ_max − τ_i).
double pipeline_bubble_s(int stages, int vp, double tau_max_s, double tau_slack_s);

// Records why the plan is impossible (Eval::fail); evaluate() then returns it invalid.
void check_structure(Eval& ev);
// Compute and TP/CP/EP communication of one layer of each kind present, and the embedding and
// head, for one micro-batch, into `costs` (all kinds absent on entry).
void cost_layers(Eval& ev, const MicroBatchShape& s, LayerCosts& costs);
// Every pipeline rank's load and memory; the slowest rank sets the step, the fullest the memory.
PipelineLoad load_ranks(const TrainContext& ctx, const Plan& p, const MicroBatchShape& s, const StateBytes& state,
                        const LayerCosts& costs);
// Data parallelism: gradient reduction and (ZeRO/FSDP) parameter gathers of the slowest rank.
// The edge bucket group's share (TrainBreakdown::dp_edge) goes into ev.est's breakdown.
CommCost data_parallel_comm(Eval& ev, const MicroBatchShape& s, const RankLoad& worst, const LayerCosts& costs);
// Pipeline: activations between stages, forward and backward, every micro-batch and chunk.
CommCost pipeline_comm(Eval& ev, const MicroBatchShape& s);
// Optimizer step on the GPU, and offloaded to the host.
double optimizer_step_s(const TrainContext& ctx, const Plan& p, const StateBytes& state, const RankLoad& worst);
OffloadCost offload_step(const TrainContext& ctx, const Plan& p, const StateBytes& state, const RankLoad& worst);

}  // namespace gpuplan::train_eval
