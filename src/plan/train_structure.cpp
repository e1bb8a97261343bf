// The training evaluator's structure check: a plan the model or the cluster cannot run (degrees
// that do not divide heads, experts or the sequence; schedules' own conditions; a precision or
// scaling recipe the GPU lacks) is refused with the reason, before anything is costed.
#include <string>

#include "plan/evaluate_internal.h"
#include "workload/params.h"

namespace gpuplan::train_eval {

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
  if (p.pp * p.vp > slots && p.pp_layout_layers.empty()) {  // a layout may leave a chunk without layers
    return ev.fail("pp %d x vp %d exceeds the %lld layers", p.pp, p.vp, static_cast<long long>(slots));
  }
  if (p.pp_embedding_head_slots && p.pp == 1) {
    return ev.fail("counting the embedding and head as pipeline layers needs pp > 1");
  }
  // An explicit layout (Plan::pp_layout_layers): one count per chunk, every decoder layer once.
  if (!p.pp_layout_layers.empty()) {
    std::int64_t placed = 0;
    for (int n : p.pp_layout_layers) placed += n < 0 ? -m.layers - 1 : n;
    if (std::ssize(p.pp_layout_layers) != static_cast<std::int64_t>(p.pp) * p.vp || placed != m.layers) {
      return ev.fail("the pipeline layout has %lld chunks placing %lld layers; the plan has pp %d x vp %d chunks and "
                     "the model %lld layers",
                     static_cast<long long>(p.pp_layout_layers.size()), static_cast<long long>(placed), p.pp, p.vp,
                     static_cast<long long>(m.layers));
    }
    if (p.pp_embedding_head_slots) {
      return ev.fail("a pipeline layout places the embedding and the head itself: drop pp_embedding_head_slots");
    }
  }
  if (p.mtp_layers < 0 || p.mtp_layers > m.mtp_layers) {
    return ev.fail("mtp_layers %d: the model has %lld multi-token-prediction modules", p.mtp_layers,
                   static_cast<long long>(m.mtp_layers));
  }
  if (p.mtp_chunk >= static_cast<std::int64_t>(p.pp) * p.vp) {
    return ev.fail("mtp_chunk %d: the plan has pp %d x vp %d chunks", p.mtp_chunk, p.pp, p.vp);
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
  // Megatron-Core's batch-level EP AllToAll overlap (--overlap-moe-expert-parallel-comm, the
  // plan's 1f1b) pairs chunks of the interleaved schedule only: with a pipeline it asserts a
  // virtual pipeline size, and it refuses full recompute (TransformerConfig.__post_init__,
  // megatron/core/transformer/transformer_config.py at core_v0.16.1, 55ac708).
  if (p.moe_overlap == MoeOverlap::one_f_one_b && p.pp > 1 && p.vp == 1) {
    return ev.fail("MoE 1f1b overlap with pp %d needs an interleaved schedule (vp > 1)", p.pp);
  }
  if (p.moe_overlap == MoeOverlap::one_f_one_b && p.recompute == Recompute::full) {
    return ev.fail("MoE 1f1b overlap does not run with full recompute");
  }
  if (p.optimizer_state_bits != 32 && p.optimizer_state_bits != 16 && p.optimizer_state_bits != 8) {
    return ev.fail("optimizer state bits %d: use 32, 16 or 8", p.optimizer_state_bits);
  }
  if (p.offload_activation_layers < 0) {
    return ev.fail("offload_activation_layers %d: use 0 (none) or more", p.offload_activation_layers);
  }
  // Megatron-Core's checks (TransformerConfig.__post_init__): fewer layers than the model has,
  // no pipeline parallelism, no recompute.
  if (p.offload_activation_layers > 0 && p.offload_activation_layers >= ev.ctx.model->layers) {
    return ev.fail("offload_activation_layers %d: must be below the model's %lld decoder layers",
                   p.offload_activation_layers, static_cast<long long>(ev.ctx.model->layers));
  }
  if (p.offload_activation_layers > 0 && (p.pp > 1 || p.recompute != Recompute::none)) {
    return ev.fail("activation offload with %s: Megatron-Core offloads only without pipeline parallelism and "
                   "without recompute (use pp 1 and recompute none)",
                   p.pp > 1 ? "pp > 1" : "recompute");
  }
  if (p.offload_activation_layers > 0 && ev.ctx.host_link_bw_bytes_per_s <= 0) {
    return ev.fail("activation offload: %s has no host link in the catalog", ev.ctx.gpu->id.c_str());
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

}  // namespace gpuplan::train_eval
