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

// Layers [start, end) of the model, counted by kind.
std::array<std::int32_t, kLayerKinds> kinds_in(const TrainContext& ctx, std::int64_t start, std::int64_t end) {
  std::array<std::int32_t, kLayerKinds> n{};
  for (int k = 0; k < kLayerKinds; ++k) {
    n[static_cast<std::size_t>(k)] = ctx.prefix[static_cast<std::size_t>(end)][static_cast<std::size_t>(k)] -
                                     ctx.prefix[static_cast<std::size_t>(start)][static_cast<std::size_t>(k)];
  }
  return n;
}

void add_ops_to_rank(const TrainContext& ctx, const LayerOps& ops, const OpShape& shape, RankLoad& r) {
  const OpTime t = layer_time(ctx.device, ops, shape.gemm, shape.act);
  r.fwd_s += issue_bound_s(t.fwd_s, t.host_fwd_s);
  r.bwd_s += issue_bound_s(t.bwd_s, t.host_bwd_s);
  r.params += ops.params();
}

}  // namespace

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
    // Activation offload: the layers' own compute hides the copies (before the embedding and
    // head are added to the rank's time).
    const ActivationOffloadCost offload =
        p.offload_activation_layers > 0 && r.layers > 0
            ? activation_offload_cost(r.layers, p.offload_activation_layers, r.stored_bytes / r.layers,
                                      ctx.host_link_bw_bytes_per_s, r.fwd_s / r.layers, r.bwd_s / r.layers)
            : ActivationOffloadCost{};
    r.offload_s = offload.transfer_s;
    r.offload_exposed_s = offload.exposed_s;
    if (rank == 0) add_ops_to_rank(ctx, emb, s.op, r);
    if (rank == stages - 1) {
      add_ops_to_rank(ctx, head, s.op, r);
      // Tied embeddings split over stages keep a copy of the table on the last stage.
      if (m.tied_embeddings && stages > 1) r.params += d(m.vocab) * h / p.tp;
      out.hw_flops_per_mb += (head.fwd_flops() + head.bwd_flops()) * p.tp * p.cp;
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
