// Every pipeline rank's load (its chunks' layers, counted by kind) and memory (micro-batches in
// flight under the schedule, ZeRO/FSDP sharding, the framework's own terms). Formulas:
// docs/model/training.md, docs/model/memory.md.
#include <algorithm>

#include "cost/framework_memory.h"
#include "plan/activation_offload.h"
#include "plan/evaluate_internal.h"
#include "workload/size_math.h"

namespace gpuplan::train_eval {
namespace {

using size_math::d;

// The layer kinds the model has, in kind order (a dense model: one). A kind it lacks counts
// no layer on any rank, so the per-rank loops visit these only.
struct PresentKinds {
  std::array<std::size_t, kLayerKinds> kind{};
  int count = 0;
};

PresentKinds present_kinds(const TrainContext& ctx) {
  PresentKinds p;
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (ctx.prefix.back()[k] > 0) p.kind[static_cast<std::size_t>(p.count++)] = k;
  }
  return p;
}

void add_edge_to_rank(const EdgeCost& e, RankLoad& r) {
  r.fwd_s += issue_bound_s(e.time.fwd_s, e.time.host_fwd_s);
  r.bwd_s += issue_bound_s(e.time.bwd_s, e.time.host_bwd_s);
  r.params += e.params;
}

}  // namespace

PipelineLoad load_ranks(const TrainContext& ctx, const Plan& p, const MicroBatchShape& s, const StateBytes& state,
                        const LayerCosts& costs) {
  const std::array<KindCost, kLayerKinds>& kinds = costs.kinds;
  const ModelSpec& m = *ctx.model;
  const int stages = s.stages;
  const int micro_batches = s.micro_batches;
  const int chunks = p.pp * p.vp;
  const double h = d(m.hidden);
  const PresentKinds present = present_kinds(ctx);
  PipelineLoad out;
  // Ranks come in few classes: a rank holding as many layers of each kind as the one before
  // it has that rank's per-layer sums (the same additions in the same order), reused here.
  std::array<std::int32_t, kLayerKinds> sums_n{};
  double sums_layers = -1;
  RankLoad sums;  // the per-layer sums of the last rank that added them
  bool same_as_previous = false;
  // Every pipeline rank: its chunks r, r + p, ... (pipeline_chunk_layers).
  for (int rank = 0; rank < stages; ++rank) {
    std::array<std::int32_t, kLayerKinds> n{};
    double layers = 0;
    for (int v = 0; v < p.vp; ++v) {
      const std::int64_t chunk = rank + static_cast<std::int64_t>(v) * stages;
      const LayerRange range = pipeline_chunk_layers(m.layers, chunks, p.pp_embedding_head_slots, chunk);
      const auto& end = ctx.prefix[static_cast<std::size_t>(range.end)];
      const auto& begin = ctx.prefix[static_cast<std::size_t>(range.begin)];
      for (int i = 0; i < present.count; ++i) {
        const std::size_t kind = present.kind[static_cast<std::size_t>(i)];
        n[kind] += end[kind] - begin[kind];
      }
      layers += d(range.end - range.begin);
    }
    same_as_previous = rank > 0 && n == sums_n && layers == sums_layers;
    if (!same_as_previous) {
      sums = RankLoad{};
      for (int i = 0; i < present.count; ++i) {
        const std::size_t kind = present.kind[static_cast<std::size_t>(i)];
        const KindCost& k = kinds[kind];
        const double count = n[kind];
        if (count == 0) continue;
        sums.fwd_s += count * k.fwd_s;
        sums.bwd_s += count * k.bwd_s;
        sums.recompute_s += count * k.recompute_s;
        sums.tp_s += count * k.tp_comm_s;
        sums.tp_exposed_s += count * k.tp_exposed_s;
        sums.cp_s += count * k.cp_comm_s;
        sums.cp_exposed_s += count * k.cp_exposed_s;
        sums.ep_s += count * k.ep_comm_s;
        sums.ep_exposed_s += count * k.ep_exposed_s;
        sums.params += count * k.params;
        sums.expert_params += count * k.expert_params;
        sums.low_precision_params += count * k.low_precision_params;
        sums.stored_bytes += count * k.stored_bytes;
        sums.working_bytes = std::max(sums.working_bytes, k.working_bytes);
        sums.eager_stored_bytes += count * k.eager.stored_bytes;
        sums.eager_working_bytes = std::max(sums.eager_working_bytes, k.eager.working_bytes);
        sums.max_layer_params = std::max(sums.max_layer_params, k.params);
      }
      sums_n = n;
      sums_layers = layers;
    }
    RankLoad r = sums;
    r.layers = layers;
    for (int i = 0; i < present.count; ++i) {
      const std::size_t kind = present.kind[static_cast<std::size_t>(i)];
      const double count = n[kind];
      if (count == 0) continue;
      out.hw_flops_per_mb += count * kinds[kind].hw_flops * p.tp * p.cp;
      out.recompute_flops_per_mb += count * kinds[kind].recompute_flops * p.tp * p.cp;
    }
    // Activation offload: the layers' own compute hides the copies (before the embedding and
    // head are added to the rank's time).
    const ActivationOffloadCost offload =
        p.offload_activation_layers > 0 && r.layers > 0
            ? activation_offload_cost(r.layers, p.offload_activation_layers, r.stored_bytes / r.layers,
                                      ctx.host_link_bw_bytes_per_s, r.fwd_s / r.layers, r.bwd_s / r.layers)
            : ActivationOffloadCost{};
    r.offload_s = offload.transfer_s;
    r.offload_exposed_s = offload.exposed_s;
    if (rank == 0) add_edge_to_rank(costs.embedding, r);
    if (rank == stages - 1) {
      add_edge_to_rank(costs.head, r);
      // Tied embeddings split over stages keep a copy of the table on the last stage.
      if (m.tied_embeddings && stages > 1) r.params += d(m.vocab) * h / p.tp;
      out.hw_flops_per_mb += costs.head.flops * p.tp * p.cp;
    }
    r.tau_s = r.fwd_s + r.bwd_s + r.tp_exposed_s + r.cp_exposed_s + r.ep_exposed_s + r.offload_exposed_s;
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
    // A rank of the previous rank's class (the same layers; neither the first nor the last,
    // whose embedding, head and loss add memory) has every memory term of that rank but the
    // activations in flight, and no more of those (no schedule above lets their number grow
    // with the rank): its memory is at most that rank's, so it is not the fullest (a strict
    // maximum), and its host memory is the same.
    if (same_as_previous && rank >= 2 && rank < stages - 1) continue;
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
    // fp8 primary weights: those copies are the only working weights of the fp8 GEMMs (expert
    // GEMMs count first: every routed expert's weight is a low-precision GEMM's).
    if (p.fp8_params) {
      mi.quantised_only_expert_params = std::min(r.expert_params, r.low_precision_params);
      mi.quantised_only_dense_params = r.low_precision_dense_params();
    }
    // DualPipe keeps two copies of the parameters (DeepSeek-V3 report, Table 2): the second
    // copy's weights and gradients; the optimizer updates one.
    if (p.moe_overlap == MoeOverlap::dualpipe) {
      mi.extra_weight_bytes += r.params * (ctx.options.state.weight + ctx.options.state.grad);
    }
    mi.gathered_weight_bytes = 2 * r.max_layer_params * ctx.options.state.weight;
    mi.stored_activation_bytes = r.stored_bytes * in_flight_mb * offload.resident_fraction;
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

}  // namespace gpuplan::train_eval
