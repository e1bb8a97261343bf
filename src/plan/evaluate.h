// The training evaluator: plan × model × cluster → Estimate (step time, throughput, MFU,
// memory per GPU, and where the time goes). Build a TrainContext once per model, GPU and
// cluster; evaluate() is then a pure function that never throws and never allocates, cheap
// enough for a plan search to call millions of times. Formulas: docs/model/training.md.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/verdict.h"
#include "cost/collective.h"
#include "cost/memory.h"
#include "cost/roofline.h"
#include "plan/placement.h"
#include "plan/plan.h"

namespace gpuplan {

struct TrainOptions {
  const Efficiency* efficiency = nullptr;  // replaces the catalog's entry for the GPU (fitting)
  const Framework* framework = nullptr;    // the training framework; null = the catalog's default
  StateBytes state;                  // bytes per parameter (16 for mixed-precision Adam)
  double grad_reduce_bytes = 2;      // per gradient element on the wire (bf16; fp32 = 4)
  double runtime_overhead_bytes = -1;  // CUDA context + NCCL; < 0 = the efficiency entry's
  double fragmentation_fraction = -1;  // < 0 = the efficiency entry's
  double usable_memory_bytes = 0;      // 0 = the GPU's usable memory
  // Kept free on every GPU: a plan fits when its memory + this is at most the usable memory.
  double memory_headroom_bytes = 0;
};

// Everything about one model on one GPU in one cluster that does not depend on the plan.
struct TrainContext {
  const ModelSpec* model = nullptr;
  const Gpu* gpu = nullptr;
  const System* system = nullptr;  // may be null: a single scale-up domain of `domain_gpus`
  const Fabric* fabric = nullptr;
  const Efficiency* efficiency = nullptr;
  const Framework* framework = nullptr;  // null only for a catalog without framework entries
  RooflineDevice device;
  CollectiveTopology topology;
  TrainOptions options;
  int domain_gpus = 1;
  double usable_memory_bytes = 0;    // what the allocator can have: the GPU's less the driver's reserve
  double driver_reserved_bytes = 0;  // the driver's reserve taken off the GPU's usable memory
  double memory_headroom_bytes = 0;  // the options', checked by make_train_context
  double runtime_overhead_bytes = 0;
  double fragmentation_fraction = 0;
  double matmul_active_params = 0;  // params.h: weights one token multiplies (for 6N)
  // Optimizer offload (docs/model/training.md §4–5). Each GPU's link to host memory: the link
  // of its PCIe generation at the measured host-to-device efficiency (0 = no PCIe generation
  // in the GPU's file). The system's host ([host] of its file; 0 = not in the catalog): DRAM
  // bandwidth and capacity of one host, shared by its `host_gpus` GPUs.
  double host_link_bw_bytes_per_s = 0;
  double host_memory_bw_bytes_per_s = 0;
  double host_memory_bytes = 0;
  int host_gpus = 1;
  // prefix[i][k]: layers of kind k among the first i layers.
  std::vector<std::array<std::int32_t, kLayerKinds>> prefix;
  // The layer kinds the model has, in kind order (a dense model: one), and the first layer of
  // each: the per-layer and per-rank loops of evaluate() visit these only.
  std::array<std::uint8_t, kLayerKinds> present_kinds{};
  int present_kind_count = 0;
  std::array<std::int64_t, kLayerKinds> first_layer_of_kind{};
  std::array<std::uint8_t, kLayerKinds> kinds_in_layer_order{};  // present_kinds by first layer
  // train_flops_per_token (workload/params.h) at `flops_seq_len` tokens per sequence, hoisted
  // out of evaluate() (a search's plans share one sequence length): the model's default at
  // make_train_context; set_flops_seq_len for another. 0 = none held.
  std::int64_t flops_seq_len = 0;
  double flops_per_token = 0;
};

// Throws Error on bad input (a GPU without efficiency data, a system for another GPU).
// `system` may be null for a single GPU or one domain; `fabric` may be null.
TrainContext make_train_context(const Catalog& catalog, const ModelSpec& model, const Gpu& gpu,
                                const System* system, const Fabric* fabric, const TrainOptions& options = {});

// A communication kind's time per step, and the part not hidden behind compute.
struct CommCost {
  double total_s = 0;
  double exposed_s = 0;
};


struct TrainBreakdown {
  double forward_s = 0;    // compute of the slowest pipeline rank, all micro-batches
  double backward_s = 0;
  double recompute_s = 0;  // included in backward_s
  double bubble_s = 0;
  double optimizer_s = 0;
  CommCost tp, cp, ep, pp, dp;  // dp: gradient reduction and parameter gathers (ZeRO/FSDP)
  // Of dp: the edge bucket group's reduction after the last backward and gather before the
  // first forward, which nothing hides (BucketWalk; docs/model/training.md §3, "Edge buckets").
  CommCost dp_edge;
  // Optimizer offload: gradients device→host (hidden behind the last backward as far as it
  // lasts) and updated weights host→device (exposed); optimizer_s is then the CPU's step.
  CommCost offload_grads, offload_weights;
  // Activation offload (Plan::offload_activation_layers): copies to and from host memory,
  // exposed where a layer's compute does not cover its copy; the exposed part is in the step.
  CommCost offload_activations;
  // DeepSeek-V3's multi-token-prediction block (Plan::mtp_layers) on the slowest rank, all
  // micro-batches: its forward and backward, included in forward_s and backward_s (0 where the
  // slowest rank does not hold it). The block's EP dispatch is in ep.
  double mtp_s = 0;
};

struct Estimate {
  // Whether the plan runs (core/verdict.h): invalid_plan = structurally impossible (the
  // numbers below are not computed), out_of_memory = valid but does not fit; the text says why.
  Infeasibility verdict;
  bool feasible() const { return verdict.ok(); }  // structurally valid and fits in memory
  bool valid() const { return verdict.kind() != Infeasibility::Kind::invalid_plan; }  // the numbers are meaningful
  bool fits() const { return verdict.ok(); }
  const char* reason_text() const { return verdict.text(); }

  int gpus = 0;
  int micro_batches = 0;
  double tokens_per_step = 0;
  double step_time_s = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  double model_flops_per_step = 0;     // 6N + causal attention per token (params.h)
  double hardware_flops_per_step = 0;  // what runs: + recompute, + FlashAttention's backward
  double tflops_per_gpu = 0;           // model FLOP/s per GPU, in TFLOP/s
  double mfu = 0;  // model FLOPs / (time × GPUs × dense peak of the plan's precision)
  double hfu = 0;  // with recompute, same peak
  double bubble_fraction = 0;  // bubble / (m·τ): (p - 1) / (v·m) for equal stages (Narayanan et al. 2021)
  // The GPU's tensor clock at its power limit over the family's reference part's, which every
  // tensor rate of the step was scaled by (cost/roofline.h power_clock_factor; 1 = not modelled).
  double tensor_clock_factor = 1;
  // The plan's low-precision GEMMs' clock, where their power per clock sets another one than the
  // 16-bit tensor clock (power_clock_factor's precision term: Blackwell Ultra's fp4).
  double gemm_clock_factor = 1;
  MemoryBreakdown memory;      // the most loaded pipeline rank
  double memory_capacity_bytes = 0;  // what the allocator can have (the driver's reserve taken off)
  double driver_reserved_bytes = 0;  // the driver's share of the card, not in the capacity
  // The verdict a user bets a job on: capacity - peak - headroom (negative = out of memory), and
  // "tight" when that margin is smaller than the framework's own median error on peak memory.
  double memory_margin_bytes = 0;
  double memory_error_fraction = 0;
  bool memory_tight = false;
  int memory_stage = 0;        // which pipeline rank that is
  // Optimizer offload: host memory per GPU (the largest over the pipeline ranks) and the share
  // of the host each GPU may use (0 = the catalog has no host memory for the system: unchecked).
  double host_memory_bytes = 0;
  double host_memory_capacity_bytes = 0;
  TrainBreakdown breakdown;
  Bottleneck bottleneck = Bottleneck::compute;
};

Estimate evaluate(const TrainContext& ctx, const Plan& plan);

// Holds train_flops_per_token at `seq_len` in `ctx` (plans of another length compute their own).
void set_flops_seq_len(TrainContext& ctx, std::int64_t seq_len);

// What the evaluations of one plan search share (plan/eval_memo.h): one per search worker,
// made for one context, which must not change while the memo is in use. evaluate() with it
// gives the same Estimate to the bit as without.
struct TrainEvalMemo;
struct TrainEvalMemoDelete {
  void operator()(TrainEvalMemo* memo) const;
};
using TrainEvalMemoPtr = std::unique_ptr<TrainEvalMemo, TrainEvalMemoDelete>;
TrainEvalMemoPtr make_train_eval_memo(const TrainContext& ctx);
// `memo` may be null, or one made for another context (then unused).
Estimate evaluate(const TrainContext& ctx, const Plan& plan, TrainEvalMemo* memo);

// Tensor cores that read block scales (MXFP8, NVFP4) came with the GPUs that also have fp4
// tensor cores (Blackwell's 5th generation, CDNA 4): the catalog's fp4 rate is the flag.
inline bool has_block_scaled_mma(const Gpu& gpu) { return gpu.dense(Precision::fp4) > 0; }

// The shapes every layer's ops run at under `plan` on one GPU (one micro-batch after TP, CP and
// EP have cut it, in the plan's precisions): what evaluate() costs, and what the op roofline of
// the HTML report (plan/op_roofline.h) places.
OpShape train_op_shape(const TrainContext& ctx, const Plan& plan);

// The mechanisms of evaluate() that have a closed form, exposed for hand-checked tests.

// Decoder layers [begin, end) of pipeline chunk `chunk` of `chunks` (= pp × vp, in Megatron's
// order: chunk = v·pp + rank). Even split of the layers, or with `embedding_head_slots` of
// layers + 2 slots (Plan::pp_embedding_head_slots).
struct LayerRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
};
// Inline: the evaluator asks it for every chunk of every plan (pp × vp calls).
inline LayerRange pipeline_chunk_layers(std::int64_t layers, std::int64_t chunks, bool embedding_head_slots,
                                        std::int64_t chunk) {
  if (!embedding_head_slots) return {chunk * layers / chunks, (chunk + 1) * layers / chunks};
  // Slot 0 is the embedding, slot L + 1 the head; decoder layer i is slot i + 1.
  const std::int64_t slots = layers + 2;
  const std::int64_t begin = std::clamp<std::int64_t>(chunk * slots / chunks - 1, 0, layers);
  const std::int64_t end = std::clamp<std::int64_t>((chunk + 1) * slots / chunks - 1, begin, layers);
  return {begin, end};
}

// The same under a plan: its explicit layout (Plan::pp_layout_layers, the earlier chunks' counts
// summed) where it has one, else the split above.
inline LayerRange plan_chunk_layers(const Plan& p, std::int64_t layers, std::int64_t chunk) {
  const std::int64_t chunks = static_cast<std::int64_t>(p.pp) * p.vp;
  if (p.pp_layout_layers.empty()) return pipeline_chunk_layers(layers, chunks, p.pp_embedding_head_slots, chunk);
  std::int64_t begin = 0;
  for (std::int64_t c = 0; c < chunk; ++c) begin += p.pp_layout_layers[static_cast<std::size_t>(c)];
  return {begin, begin + p.pp_layout_layers[static_cast<std::size_t>(chunk)]};
}
// The pipeline chunk that holds the multi-token-prediction block: the layout's `m`, else the
// last chunk (Megatron-Core's mtp_on_this_rank).
inline std::int64_t plan_mtp_chunk(const Plan& p) {
  return p.mtp_chunk >= 0 ? p.mtp_chunk : static_cast<std::int64_t>(p.pp) * p.vp - 1;
}

// Ring attention over cp ranks (cp − 1 = `steps`): each step's K/V transfer (forward) or K/V
// + dK/dV transfer (backward) hidden behind that step's attention kernels only.
struct RingAttentionCost {
  double fwd_comm_s = 0, fwd_exposed_s = 0;
  double bwd_comm_s = 0, bwd_exposed_s = 0;
};
RingAttentionCost ring_attention_cost(double steps, double fwd_step_s, double bwd_step_s, double attn_fwd_step_s,
                                      double attn_bwd_step_s);

// FSDP / ZeRO-3 for one micro-batch of `units` FSDP units (layers), each unit's all-gather
// (forward and backward) and reduce-scatter one collective, prefetched one unit ahead. A
// collective hidden behind a unit's compute still costs that compute `sm_share` of itself (the
// share of the SMs NCCL holds while it runs, as the distributed optimizer's collectives).
CommCost fsdp_micro_batch_cost(double units, double gather_s, double reduce_scatter_s, double fwd_unit_s,
                               double bwd_unit_s, double sm_share = 0);

// Megatron-Core's data-parallel buckets (megatron/core/distributed/param_and_grad_buffer.py):
// the parameters are laid out in backward order (the model's last parameters first) and cut
// into buckets, each closing once it holds `bucket_params` or more (0: one bucket). Fed the
// pieces in that order, `last_params` is the size of the bucket holding the latest piece: after
// the model's first parameters (the embedding), the bucket the backward finishes last and the
// next forward needs first.
struct BucketWalk {
  double bucket_params = 0;
  double open_params = 0;  // in the bucket being filled
  double last_params = 0;  // of the bucket that holds the latest piece
  void add(double piece_params) {
    open_params += piece_params;
    last_params = open_params;
    if (bucket_params > 0 && open_params >= bucket_params) open_params = 0;
  }
};

// Expert-parallel overlap (docs/model/training.md §3), exposed for tests. The share of a
// pipeline rank's micro-batch chunks that run as forward-backward pairs under the plan's
// MoE overlap (0 none, 1 DualPipe, the 1F1B steady state otherwise).
double moe_paired_fraction(const Plan& plan);
// Exposed part of a layer's AllToAll `comm_s` beside `compute_s`: paired chunks
// max(comm − compute, sm_share·comm), unpaired ones all of it. Megatron-Core's 1F1B overlap
// passes as `compute_s` the communication less what its layer pair adds (ep_overlap_pair_s).
double ep_exposed_s(double comm_s, double compute_s, double paired_fraction, double sm_share);
// One MoE layer's parts as Megatron-Core's combined 1F1B runs them (overlap_moe_expert_parallel_comm,
// TransformerLayerSchedulePlan.run, megatron/core/models/common/model_chunk_schedule_plan.py):
// the layer splits into the attention node (attention, pre-MLP norm, router, dispatch
// preprocess: the ops before the host sync), the dispatch AllToAll, the MLP node (the experts)
// and the combine AllToAll; the nodes of one micro-batch's forward and another's backward go on
// a compute and a communication stream.
struct EpOverlapLayer {
  double attn_fwd_s = 0;
  double mlp_fwd_s = 0;
  double attn_bwd_s = 0;
  double mlp_dgrad_s = 0;  // the experts' input gradients
  double mlp_wgrad_s = 0;  // their weight gradients (delay_wgrad_compute: issued apart)
  double dispatch_fwd_s = 0;
  double combine_fwd_s = 0;
  double dispatch_bwd_s = 0;
  double combine_bwd_s = 0;
  double compute_s() const { return attn_fwd_s + mlp_fwd_s + attn_bwd_s + mlp_dgrad_s + mlp_wgrad_s; }
  double comm_s() const { return dispatch_fwd_s + combine_fwd_s + dispatch_bwd_s + combine_bwd_s; }
};
// Steady-state time of one forward-backward layer pair on the two in-order streams, each node
// starting when its stream is free and the node before it in its own micro-batch is done.
double ep_overlap_pair_s(const EpOverlapLayer& layer);
// DualPipe's bubble (DeepSeek-V3 report, Table 2): (pp/2 − 1)·(F&B + B − 3W), with F&B the
// chunk time `tau_s` and the backward `bwd_s` split into B (input gradients, with any
// recompute) and W (weight gradients, half of the rest: wgrad = dgrad FLOPs).
double dualpipe_bubble_s(int pp, double tau_s, double bwd_s, double recompute_s);

// Optimizer offload (ZeRO-Offload, Ren et al. 2021, arXiv:2101.06840, sec. 4), for a GPU's
// optimizer shard of `params` parameters: the gradients (`grad_bytes` each, their reduce
// precision) go device→host over `link_bw`, overlapped with the last backward (`backward_s`):
// exposed max(0, transfer − backward); the CPU runs Adam over `host_bytes_per_param` of host
// DRAM traffic at `host_bw` (this GPU's share of the host); the updated weights
// (`weight_bytes` each, bf16) come back host→device before the next forward, exposed.
struct OffloadCost {
  CommCost grads;
  double cpu_step_s = 0;
  CommCost weights;
};
OffloadCost optimizer_offload_cost(double params, double grad_bytes, double weight_bytes, double host_bytes_per_param,
                                   double link_bw, double host_bw, double backward_s);

}  // namespace gpuplan
