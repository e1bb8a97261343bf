// Every pipeline rank's load (its chunks' layers, counted by kind) and memory (micro-batches in
// flight under the schedule, ZeRO/FSDP sharding, the framework's own terms). Formulas:
// docs/model/training.md, docs/model/memory.md.
#include <algorithm>
#include <cstdint>
#include <new>
#include <vector>

#include "cost/framework_memory.h"
#include "cost/memory_sum.h"
#include "plan/activation_offload.h"
#include "plan/evaluate_internal.h"
#include "workload/size_math.h"

namespace gpuplan::train_eval {
namespace {

using size_math::d;

void add_edge_to_rank(const EdgeCost& e, RankLoad& r) {
  r.fwd_s += issue_bound_s(e.time.fwd_s, e.time.host_fwd_s);
  r.bwd_s += issue_bound_s(e.time.bwd_s, e.time.host_bwd_s);
  r.params += e.params;
}

// `count` layers of one kind on a rank: their times, parameters and saved activations (the
// rank's class sums and the MTP block's extra layer alike).
inline void add_layers(const KindCost& k, double count, RankLoad& r) {
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
}

// The multi-token-prediction block on its rank (Plan::mtp_layers): its own ops (costs.mtp) and,
// per depth, one more decoder layer of the model's last layer's kind (Megatron-Core's
// get_gpt_mtp_block_spec builds it from the decoder's last layer spec), with that layer's
// TP/CP/EP communication and saved activations. Its FLOPs go into `out`.
void add_mtp_to_rank(const TrainContext& ctx, const Plan& p, const LayerCosts& costs, RankLoad& r, PipelineLoad& out) {
  const ModelSpec& m = *ctx.model;
  const KindCost& k = costs.kinds[static_cast<std::size_t>(layer_kind(m, m.layers - 1))];
  const double depths = p.mtp_layers;
  const double fwd_before = r.fwd_s;
  const double bwd_before = r.bwd_s;
  add_layers(k, depths, r);  // its eager ops' saved activations too
  add_edge_to_rank(costs.mtp, r);
  r.mtp_s = (r.fwd_s - fwd_before) + (r.bwd_s - bwd_before);
  out.hw_flops_per_mb += (depths * k.hw_flops + costs.mtp.flops) * p.tp * p.cp;
  out.recompute_flops_per_mb += depths * k.recompute_flops * p.tp * p.cp;
}

// Ranks come in few classes: those holding as many layers of each kind. A class's per-layer
// sums, activation offload and FLOPs are its ranks' (the same additions in the same order),
// computed once. 126 layers on 16 stages make three classes; DeepSeek-V3's 61 on 16, two or
// three with the rank holding the dense layers.
// A pipeline chunk's decoder layers [begin, end) (pipeline_chunk_layers).
struct ChunkLayers {
  std::int64_t begin;
  std::int64_t end;
  std::int32_t first;  // layers of the first present kind, where two or more are present
};

// cost_class sets every field it reads (no initializers: a table of them is made per plan).
struct RankClass {
  std::array<std::int32_t, kLayerKinds> n;  // layers of each present kind (TrainContext::present_kinds order)
  RankLoad load;                            // its layers' sums and offload, before the embedding and head
  ActivationOffloadCost offload;
  // count · flops · tp · cp of each present kind with layers on the rank: the terms its rank
  // adds to the step's FLOPs.
  std::array<double, kLayerKinds> hw_flops;
  std::array<double, kLayerKinds> recompute_flops;
  std::uint64_t key;  // n packed (class_key), where it packs
  // The ranks of this class neither first, last nor the MTP block's: each takes the class's τ
  // (load.tau_s), added for the bubble once, with this multiplicity, after the ranks' loop.
  std::int32_t interior_ranks;
  bool interior_costed;  // a rank of this class, neither the first nor the last, has been costed
  bool first_costed;     // the first rank (0, with the embedding) is of this class
};

// A rank's layer counts in one word, 16 bits per present kind, where they fit (up to four kinds
// of fewer than 65,536 layers each): a class is then found by one comparison per class.
bool class_key_packs(int present, std::int64_t layers) { return present <= 4 && layers < 65536; }
std::uint64_t class_key(const std::array<std::int32_t, kLayerKinds>& n, int present) {
  std::uint64_t key = 0;
  for (int i = 0; i < present; ++i) key |= static_cast<std::uint64_t>(n[static_cast<std::size_t>(i)]) << (16 * i);
  return key;
}

// The classes of one plan's ranks; more than kMax classes: the rest are costed rank by rank in
// the spare entry, as if each were new.
struct RankClassTable {
  static constexpr int kMax = 8;
  RankClassTable() {}  // NOLINT(modernize-use-equals-default): leaves the entries unconstructed
  union {
    std::array<RankClass, kMax + 1> at;
  };
  int count = 0;

  // `packs`: the counts are compared through their keys (class_key_packs).
  RankClass* find(const std::array<std::int32_t, kLayerKinds>& n, std::uint64_t key, bool packs, int present) {
    if (packs) {
      for (int j = 0; j < count; ++j) {
        if (at[static_cast<std::size_t>(j)].key == key) return &at[static_cast<std::size_t>(j)];
      }
      return nullptr;
    }
    for (int j = 0; j < count; ++j) {
      RankClass& c = at[static_cast<std::size_t>(j)];
      int i = 0;
      while (i < present && c.n[static_cast<std::size_t>(i)] == n[static_cast<std::size_t>(i)]) ++i;
      if (i == present) return &c;
    }
    return nullptr;
  }
  // The entry a class past kMax is costed in (find never returns it).
  RankClass* spare() { return &at[static_cast<std::size_t>(kMax)]; }
  RankClass& add() {
    RankClass* c = ::new (&at[static_cast<std::size_t>(count < kMax ? count++ : kMax)]) RankClass;
    return *c;
  }
};

void cost_class(const TrainContext& ctx, const Plan& p, const LayerCosts& costs, std::int32_t layers, RankClass& c) {
  const std::array<KindCost, kLayerKinds>& kinds = costs.kinds;
  RankLoad& sums = c.load;
  sums = RankLoad{};
  c.interior_costed = false;
  c.first_costed = false;
  for (int i = 0; i < ctx.present_kind_count; ++i) {
    const KindCost& k = kinds[ctx.present_kinds[static_cast<std::size_t>(i)]];
    const double count = c.n[static_cast<std::size_t>(i)];
    if (count == 0) continue;
    add_layers(k, count, sums);
    c.hw_flops[static_cast<std::size_t>(i)] = count * k.hw_flops * p.tp * p.cp;
    c.recompute_flops[static_cast<std::size_t>(i)] = count * k.recompute_flops * p.tp * p.cp;
  }
  sums.layers = layers;
  // Activation offload: the layers' own compute hides the copies (before the embedding and
  // head are added to the rank's time).
  c.offload =
      p.offload_activation_layers > 0 && sums.layers > 0
          ? activation_offload_cost(sums.layers, p.offload_activation_layers, sums.stored_bytes / sums.layers,
                                    ctx.host_link_bw_bytes_per_s, sums.fwd_s / sums.layers, sums.bwd_s / sums.layers)
          : ActivationOffloadCost{};
  sums.offload_s = c.offload.transfer_s;
  sums.offload_exposed_s = c.offload.exposed_s;
  // An interior rank's τ (no embedding, head or MTP added): what the bubble adds per such rank.
  sums.tau_s = sums.busy_s();
  c.interior_ranks = 0;
}

// What every rank's memory shares under the plan, set once per plan (rank_memory adds the rank's own terms).
struct RankMemoryBase {
  MemoryInputs mi;
  const FrameworkMemory* fm = nullptr;
  double gemm_in_bytes = 0;
  double quantised_copies = 0;
  double optimizer_shard = 1;
  double table_params = 0;  // the embedding table's share of a GPU: vocab · hidden / tp
};

const FrameworkMemory kNoFrameworkMemory{};

RankMemoryBase rank_memory_base(const TrainContext& ctx, const Plan& p, const MicroBatchShape& s,
                                const StateBytes& state) {
  RankMemoryBase b;
  MemoryInputs& mi = b.mi;
  // FSDP under a pipeline keeps the stage's weights gathered and its gradients unsharded for
  // the whole step (data_parallel_comm): only the optimizer states stay sharded.
  const bool fsdp_in_pipeline = p.zero == 3 && p.pp > 1;
  mi.zero_stage = fsdp_in_pipeline ? 1 : p.zero;
  mi.dense_shard = static_cast<double>(std::min(p.shard_group(), p.dp)) * p.cp;
  mi.expert_shard = std::max(1.0, static_cast<double>(p.tp) * p.cp * p.dp / p.ep);
  mi.bytes = state;
  mi.optimizer_on_host = p.offload_optimizer;
  mi.host_grad_bytes = p.offload_optimizer ? ctx.options.grad_reduce_bytes : 0;
  b.fm = ctx.framework ? &ctx.framework->memory : &kNoFrameworkMemory;
  // One process with its gradients set to None between steps, and one micro-batch per step
  // (with gradient accumulation the first micro-batch's gradients are alive through the
  // others' backward); DDP's buckets and sharded gradient buffers persist.
  mi.grads_freed_between_steps = b.fm->grads_freed_between_steps && p.gpus() == 1 && s.micro_batches == 1;
  // A single GPU has no NCCL communicator, so no NCCL buffers (unless the user set the
  // runtime overhead with --overhead-gib).
  mi.runtime_bytes = ctx.runtime_overhead_bytes -
                     (p.gpus() == 1 && ctx.options.runtime_overhead_bytes < 0 ? ctx.efficiency->nccl_buffer_bytes : 0);
  mi.fragmentation_fraction = ctx.fragmentation_fraction;
  b.gemm_in_bytes = s.op.gemm_in_bytes();
  b.quantised_copies = quantised_weight_copies(p.scaling);
  b.optimizer_shard = p.zero >= 1 ? std::max(1.0, mi.dense_shard) : 1.0;
  b.table_params = d(ctx.model->vocab) * d(ctx.model->hidden) / p.tp;
  return b;
}

// Micro-batches in flight on `rank` under 1F1B, or chunks under interleaving (Narayanan et
// al. 2021; Korthikanti et al. 2022, sec. 4.2.3). No schedule here lets it grow with the rank.
double in_flight_micro_batches(const Plan& p, int micro_batches, int stages, int rank) {
  if (p.moe_overlap == MoeOverlap::dualpipe) {
    return std::min(micro_batches, stages + 1);  // DeepSeek-V3 report, Table 2: PP + 1
  }
  if (p.vp == 1) return std::min(micro_batches, stages - rank);
  const double in_flight_chunks = std::min<double>(static_cast<double>(micro_batches) * p.vp,
                                                   2.0 * (stages - rank - 1) + (p.vp - 1.0) * stages + 1);
  return in_flight_chunks / p.vp;
}

// `b.mi` holds the plan's terms and the previous rank's own: every term of a rank is set here,
// so it is used in place, not copied per rank.
void rank_memory(const TrainContext& ctx, const Plan& p, const MicroBatchShape& s, RankMemoryBase& b, const RankLoad& r,
                 double resident_fraction, int rank, MemoryBreakdown& mem) {
  const ModelSpec& m = *ctx.model;
  const int stages = s.stages;
  const double in_flight_mb = in_flight_micro_batches(p, s.micro_batches, stages, rank);
  MemoryInputs& mi = b.mi;
  mi.dense_params = r.params - r.expert_params;
  mi.expert_params = r.expert_params;
  // Transformer Engine keeps a quantised copy of the low-precision GEMMs' weights (two with
  // 1-D block scales: one per direction; workload/scaling.h). 16-bit plans have none.
  mi.extra_weight_bytes = r.low_precision_params * b.gemm_in_bytes * b.quantised_copies;
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
  mi.stored_activation_bytes = r.stored_bytes * in_flight_mb * resident_fraction;
  mi.working_activation_bytes = r.working_bytes;
  const FrameworkMemory& fm = *b.fm;
  mi.head_buffer_bytes = rank == stages - 1
                             ? s.tokens * d(m.vocab) / p.tp * loss_bytes_per_logit(fm, p.eager_elementwise, s.act_bytes)
                             : 0;
  // autocast's copies: every matmul weight of the rank (the output head included), not the
  // embedding table, which is looked up, not multiplied (a tied table is cast for the head).
  const bool untied_table = rank == 0 && !m.tied_embeddings;
  mi.weight_copy_bytes = fm.autocast_copy_bytes * std::max(0.0, r.params - (untied_table ? b.table_params : 0));
  mi.eager_saved_bytes = r.eager_stored_bytes * in_flight_mb + r.eager_working_bytes;
  mi.optimizer_temp_bytes = fm.optimizer_temp_bytes * r.params / b.optimizer_shard;
  memory_detail::memory_per_gpu(mi, mem);
}

// The layers of each present kind on `rank` (n, all zero on entry), and their sum: every
// layer has one kind, so the last kind's count is what the others leave. kPresent: the number
// of present kinds where the caller knows it (1 or 2: the loops over kinds unrolled), 0
// otherwise.
template <int kPresent>
[[gnu::always_inline]] inline std::int32_t rank_layer_counts(const TrainContext& ctx, const ChunkLayers* ranges,
                                                             std::int64_t chunks, int stages, int rank,
                                                             std::array<std::int32_t, kLayerKinds>& n) {
  const int present = kPresent > 0 ? kPresent : ctx.present_kind_count;
  std::int32_t layers = 0;
  for (std::int64_t chunk = rank; chunk < chunks; chunk += stages) {
    const ChunkLayers range = ranges[chunk];
    layers += static_cast<std::int32_t>(range.end - range.begin);
    if (present == 1) continue;
    if (present == 2) {
      n[0] += range.first;
      continue;
    }
    const auto& end = ctx.prefix[static_cast<std::size_t>(range.end)];
    const auto& begin = ctx.prefix[static_cast<std::size_t>(range.begin)];
    for (int i = 0; i + 1 < present; ++i) {
      const std::size_t kind = ctx.present_kinds[static_cast<std::size_t>(i)];
      n[static_cast<std::size_t>(i)] += end[kind] - begin[kind];
    }
  }
  std::int32_t others = 0;
  for (int i = 0; i + 1 < present; ++i) others += n[static_cast<std::size_t>(i)];
  n[static_cast<std::size_t>(present - 1)] = layers - others;
  return layers;
}

// A rank's terms of the step's FLOPs, in kind order (kPresent as for rank_layer_counts).
template <int kPresent>
[[gnu::always_inline]] inline void add_rank_flops(const RankClass& c, const std::array<std::int32_t, kLayerKinds>& n,
                                                  int present_kinds, PipelineLoad& out) {
  const int present = kPresent > 0 ? kPresent : present_kinds;
  for (int i = 0; i < present; ++i) {
    if (n[static_cast<std::size_t>(i)] == 0) continue;
    out.hw_flops_per_mb += c.hw_flops[static_cast<std::size_t>(i)];
    out.recompute_flops_per_mb += c.recompute_flops[static_cast<std::size_t>(i)];
  }
}

}  // namespace

PipelineLoad load_ranks(const TrainContext& ctx, const Plan& p, const MicroBatchShape& s, const StateBytes& state,
                        const LayerCosts& costs) {
  const ModelSpec& m = *ctx.model;
  const int stages = s.stages;
  const std::int64_t chunks = static_cast<std::int64_t>(p.pp) * p.vp;
  const int present = ctx.present_kind_count;
  RankMemoryBase memory_base = rank_memory_base(ctx, p, s, state);
  const bool packs = class_key_packs(present, m.layers);
  // Whether the first rank's memory bounds that of an interior rank of its class (below): every
  // term of rank_memory is then the interior rank's plus non-negative amounts, but autocast's
  // copies of an untied model, from which the first rank takes the table off again (an
  // addition and a subtraction that may round below the interior rank's).
  const bool first_bounds_interior = m.tied_embeddings || memory_base.fm->autocast_copy_bytes == 0;
  PipelineLoad out;
  RankClassTable classes;
  // Every chunk's layers (pipeline_chunk_layers), once: rank r holds chunks r, r + p, ...
  std::array<ChunkLayers, 256> ranges_here;  // uninitialized: a plan has pp × vp chunks
  std::vector<ChunkLayers> ranges_beyond;
  ChunkLayers* ranges = ranges_here.data();
  if (chunks > std::ssize(ranges_here)) {
    ranges_beyond.resize(static_cast<std::size_t>(chunks));
    ranges = ranges_beyond.data();
  }
  // The first present kind's layers per chunk (rank_layer_counts with two kinds sums them).
  const auto first_before = [&](std::int64_t layer) {
    return present >= 2 ? ctx.prefix[static_cast<std::size_t>(layer)][ctx.present_kinds[0]] : 0;
  };
  // One or two kinds split evenly: each rank's layers, and its layers of the first kind, are
  // summed as the boundaries are found (chunk c is rank c mod stages'), with no per-chunk table
  // for rank_layer_counts to walk again.
  const bool layout = !p.pp_layout_layers.empty();
  const bool rank_totals = !p.pp_embedding_head_slots && !layout && present <= 2 && chunks <= 256;
  std::array<std::int32_t, 256> rank_layers;  // [0, stages) set where rank_totals
  std::array<std::int32_t, 256> rank_first;   // [0, stages) set where rank_totals with two kinds
  if (layout) {
    // An explicit layout (Plan::pp_layout_layers): each chunk begins where the one before ends.
    std::int64_t begin = 0;
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t end = begin + p.pp_layout_layers[static_cast<std::size_t>(c)];
      ranges[c] = {begin, end, first_before(end) - first_before(begin)};
      begin = end;
    }
  } else if (p.pp_embedding_head_slots) {
    for (std::int64_t c = 0; c < chunks; ++c) {
      const LayerRange r = pipeline_chunk_layers(m.layers, chunks, true, c);
      ranges[c] = {r.begin, r.end, first_before(r.end) - first_before(r.begin)};
    }
  } else {
    // The even split: chunk c ends where chunk c + 1 begins, (c + 1) · layers / chunks
    // (pipeline_chunk_layers computes both ends of every chunk), and its first-kind count is one
    // look-up. The quotients step by layers / chunks, their remainders by layers % chunks: one
    // integer division for the plan instead of one per chunk (a 64-bit division takes tens of
    // cycles), the same integers.
    const std::int64_t step = m.layers / chunks;
    const std::int64_t step_rest = m.layers % chunks;
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::int64_t rest = 0;  // (c + 1) · layers % chunks
    const auto next_end = [&] {
      end += step;
      rest += step_rest;
      if (rest >= chunks) {
        rest -= chunks;
        ++end;
      }
    };
    if (rank_totals && present == 1 && step_rest == 0) {
      // One kind, every chunk `step` layers (80 layers in 20 chunks): each rank's chunks / stages
      // chunks hold step · chunks / stages layers, the sum the loop below would make.
      const auto rank_chunks_layers = static_cast<std::int32_t>(step * (chunks / stages));
      std::fill_n(rank_layers.begin(), static_cast<std::size_t>(stages), rank_chunks_layers);
    } else if (rank_totals) {
      const auto ranks = static_cast<std::size_t>(stages);
      std::fill_n(rank_layers.begin(), ranks, 0);
      if (present == 2) std::fill_n(rank_first.begin(), ranks, 0);
      std::int32_t first_at_begin = first_before(0);
      std::size_t rank = 0;
      for (std::int64_t c = 0; c < chunks; ++c) {
        next_end();
        rank_layers[rank] += static_cast<std::int32_t>(end - begin);
        if (present == 2) {
          const std::int32_t first_at_end = first_before(end);
          rank_first[rank] += first_at_end - first_at_begin;
          first_at_begin = first_at_end;
        }
        begin = end;
        if (++rank == ranks) rank = 0;
      }
    } else if (present >= 2) {
      std::int32_t first_at_begin = first_before(0);
      for (std::int64_t c = 0; c < chunks; ++c) {
        next_end();
        const std::int32_t first_at_end = first_before(end);
        ranges[c] = {begin, end, first_at_end - first_at_begin};
        begin = end;
        first_at_begin = first_at_end;
      }
    } else {
      for (std::int64_t c = 0; c < chunks; ++c) {
        next_end();
        ranges[c].begin = begin;  // `first` unset: one kind, never read
        ranges[c].end = end;
        begin = end;
      }
    }
  }
  alignas(RankLoad) std::array<unsigned char, sizeof(RankLoad)> edge_load;  // the first or last rank's load
  // The rank holding the multi-token-prediction block (an edge rank: costed on its own).
  const int mtp_rank = p.mtp_layers > 0 ? static_cast<int>(plan_mtp_chunk(p) % stages) : -1;
  for (int rank = 0; rank < stages; ++rank) {
    // Layers of each present kind on the rank (one or two kinds: the loops unrolled).
    std::array<std::int32_t, kLayerKinds> n{};
    std::int32_t layers = 0;
    if (rank_totals) {
      // rank_layer_counts' counts: the first kind's, and the other kind's what they leave.
      layers = rank_layers[static_cast<std::size_t>(rank)];
      n[0] = present == 2 ? rank_first[static_cast<std::size_t>(rank)] : layers;
      if (present == 2) n[1] = layers - n[0];
    } else {
      layers = present == 1   ? rank_layer_counts<1>(ctx, ranges, chunks, stages, rank, n)
               : present == 2 ? rank_layer_counts<2>(ctx, ranges, chunks, stages, rank, n)
                              : rank_layer_counts<0>(ctx, ranges, chunks, stages, rank, n);
    }
    const std::uint64_t key = packs ? class_key(n, present) : 0;
    RankClass* c = classes.find(n, key, packs, present);
    if (c == nullptr) {
      c = &classes.add();
      c->n = n;
      c->key = key;
      cost_class(ctx, p, costs, layers, *c);
    }
    if (present == 1) {
      add_rank_flops<1>(*c, n, present, out);
    } else if (present == 2) {
      add_rank_flops<2>(*c, n, present, out);
    } else {
      add_rank_flops<0>(*c, n, present, out);
    }
    const bool interior = rank > 0 && rank < stages - 1 && rank != mtp_rank;
    // An interior rank's τ is its class's (cost_class: no embedding, head or MTP added),
    // counted here and added for the bubble (pipeline_bubble_s) once per class with its
    // multiplicity after the loop; a class past the table's kMax (the spare entry, overwritten
    // by the next such rank) adds its rank's τ at once.
    if (interior) {
      if (c == classes.spare()) {
        out.add_rank_tau(c->load.tau_s);
      } else {
        ++c->interior_ranks;
      }
    }
    // An interior rank of a class whose interior rank came before: the same load (so not a
    // strictly slower rank) and every memory term of that rank but the activations in flight,
    // of which it has no more (in_flight_micro_batches); memory_per_gpu is a sum, maximum and
    // non-negative scaling of its inputs, so its total is at most that rank's and cannot be
    // the (strict) maximum, and its host memory is the same. Likewise an interior rank of the
    // first rank's class: the first rank has every term of it and the embedding's time and
    // parameters on top (added, never taken off, where first_bounds_interior), and at least as
    // many micro-batches in flight.
    if (interior && (c->interior_costed || (c->first_costed && first_bounds_interior))) continue;
    if (interior) c->interior_costed = true;
    if (rank == 0) c->first_costed = true;
    // An interior rank's load is its class's, used in place (its tau_s set below: cost_class
    // leaves it 0, and an edge rank of the class computes its own); an edge rank's is a copy
    // with the embedding or head added.
    RankLoad& r = interior ? c->load : *::new (edge_load.data()) RankLoad(c->load);
    if (rank == 0) add_edge_to_rank(costs.embedding, r);
    if (rank == stages - 1) {
      add_edge_to_rank(costs.head, r);
      // Tied embeddings split over stages keep a copy of the table on the last stage.
      if (m.tied_embeddings && stages > 1) r.params += memory_base.table_params;
      out.hw_flops_per_mb += costs.head.flops * p.tp * p.cp;
    }
    if (rank == mtp_rank) {
      add_mtp_to_rank(ctx, p, costs, r, out);
      // The MTP stage builds its own embedding for the shifted tokens, tied to the first
      // stage's (gpt_model.py: "MTP need embedding layer in mtp process stage").
      // A tied model's last stage holds a copy already (above).
      if (rank != 0 && !(m.tied_embeddings && rank == stages - 1)) r.params += memory_base.table_params;
    }
    if (!interior) {
      r.tau_s = r.busy_s();
      out.add_rank_tau(r.tau_s);
    }
    if (r.tau_s > out.worst.tau_s) out.worst = r;
    MemoryBreakdown mem;
    rank_memory(ctx, p, s, memory_base, r, c->offload.resident_fraction, rank, mem);
    out.max_host_bytes = std::max(out.max_host_bytes, mem.host_bytes);
    if (mem.total_bytes > out.worst_memory.total_bytes) {
      out.worst_memory = mem;
      out.worst_memory_rank = rank;
    }
  }
  for (int j = 0; j < classes.count; ++j) {
    const RankClass& c = classes.at[static_cast<std::size_t>(j)];
    if (c.interior_ranks > 0) out.add_rank_taus(c.load.tau_s, c.interior_ranks);
  }
  return out;
}

}  // namespace gpuplan::train_eval
