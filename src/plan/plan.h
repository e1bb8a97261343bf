// A parallel training plan: how a model is split over GPUs and how each step is run. A plain
// value; the evaluator (evaluate.h) turns plan × model × cluster into an Estimate.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/precision.h"
#include "workload/scaling.h"
#include "workload/activations.h"

namespace gpuplan {

// How a MoE layer's dispatch/combine AllToAll meets the compute (docs/model/training.md §3):
// none = exposed (Megatron-Core's default); one_f_one_b = the forward of one micro-batch runs
// beside the backward of another in the 1F1B steady state (Megatron-Core 0.14
// --overlap-moe-expert-parallel-comm); dualpipe = DeepSeek's bidirectional pipeline, every
// chunk a forward-backward pair and a shorter bubble (DeepSeek-V3 report, arXiv:2412.19437,
// sec. 3.2.1), with DeepSeek's token dispatch (fp8, no sender-side permute: OpShape::
// moe_fused_dispatch).
enum class MoeOverlap { none, one_f_one_b, dualpipe };

// "none", "1f1b", "dualpipe" (the CLI's and the JSON's spelling).
inline std::string_view moe_overlap_name(MoeOverlap o) {
  switch (o) {
    case MoeOverlap::one_f_one_b:
      return "1f1b";
    case MoeOverlap::dualpipe:
      return "dualpipe";
    case MoeOverlap::none:
      break;
  }
  return "none";
}
inline std::optional<MoeOverlap> parse_moe_overlap(std::string_view name) {
  for (MoeOverlap o : {MoeOverlap::none, MoeOverlap::one_f_one_b, MoeOverlap::dualpipe}) {
    if (name == moe_overlap_name(o)) return o;
  }
  return std::nullopt;
}

// How a MoE layer's dispatch sends a token to the expert-parallel ranks of its experts
// (docs/model/training.md §3, "Dispatchers"): alltoall = one copy per (token, chosen expert),
// as Megatron-Core's AllToAll dispatcher permutes the tokens by expert before a NCCL AllToAll
// (MoEAlltoAllTokenDispatcher); flex = one copy per (token, destination rank), the rank then
// feeding the copy to each of its chosen local experts (DeepEP and HybridEP: the dispatch
// layout counts tokens per rank, `is_token_in_rank`; Megatron-Core's flex dispatcher,
// --moe-token-dispatcher-type flex). plan/moe_dispatch.h counts the copies.
enum class MoeDispatcher { alltoall, flex };

inline std::string_view moe_dispatcher_name(MoeDispatcher d) { return d == MoeDispatcher::flex ? "flex" : "alltoall"; }
inline std::optional<MoeDispatcher> parse_moe_dispatcher(std::string_view name) {
  for (MoeDispatcher d : {MoeDispatcher::alltoall, MoeDispatcher::flex}) {
    if (name == moe_dispatcher_name(d)) return d;
  }
  return std::nullopt;
}

// "fused" / "eager" (the CLI's and the JSON's spelling of Plan::eager_elementwise).
inline std::string_view elementwise_name(bool eager) { return eager ? "eager" : "fused"; }
inline std::optional<bool> parse_elementwise(std::string_view name) {
  if (name == "fused") return false;
  if (name == "eager") return true;
  return std::nullopt;
}

struct Plan {
  int tp = 1;  // tensor parallel (Megatron column/row split of every GEMM)
  int pp = 1;  // pipeline stages
  int vp = 1;  // virtual stages per pipeline rank (interleaved 1F1B when > 1)
  int dp = 1;  // data parallel replicas (of the dense part)
  int cp = 1;  // context parallel (ring attention over the sequence)
  int ep = 1;  // expert parallel, carved out of dp × cp × tp (expert TP = 1)
  bool sp = false;  // sequence parallelism with TP (Korthikanti et al. 2022)
  int zero = 0;      // 0 DDP, 1 optimizer sharding (distributed optimizer), 2 + gradients, 3 FSDP
  int dp_shard = 0;  // ZeRO/FSDP sharding group (HSDP); 0 = all of dp
  int micro_batch = 1;   // sequences per micro-batch per data-parallel rank
  int global_batch = 0;  // sequences per step; 0 = dp × micro_batch (one micro-batch)
  int seq_len = 0;       // tokens per sequence; 0 = the model's max_seq_len
  Recompute recompute = Recompute::none;
  // Megatron-Core's recompute modules (RecomputeModule bits, workload/ops.h): parts of every
  // layer rerun in the backward, on top of `recompute` (--recompute-modules). 0 = none.
  std::uint8_t recompute_modules = 0;
  // Megatron-Core's CUDA-graph scopes (CudaGraphScope bits, workload/ops.h; --cuda-graph-scope
  // with a --cuda-graph-impl): the captured ops issue as one graph launch per region and
  // micro-batch instead of one launch per kernel (plan/cuda_graphs.h). 0 = eager.
  std::uint8_t cuda_graph_scope = 0;
  Precision precision = Precision::bf16;  // of the linear layers (fp8: Transformer Engine recipe)
  // How fp8/fp4 GEMM inputs carry their scales (--fp8-recipe; fp4 is always nvfp4).
  ScalingRecipe scaling = ScalingRecipe::delayed;
  // DeepSeek-V3's low-precision activation cache (--fp8-activation-cache; OpShape).
  bool low_precision_act_cache = false;
  // fp8 primary weights (--fp8-params; Megatron-Core TransformerConfig.fp8_param, set by
  // --fp8-param-gather): the fp8 GEMMs' weights exist only in their quantised form (the copies
  // quantised_weight_copies counts), with no 16-bit working copy beside them; the fp32 master
  // copy stays in the optimizer. Per-tensor recipes also all-gather the updated weights in
  // fp8; mxfp8 gathers them in 16 bits (through the gradient buffer) and quantises on the copy.
  bool fp8_params = false;
  // NVFP4's random Hadamard transforms on the weight-gradient GEMMs' inputs (fp4 plans only):
  // Transformer Engine's NVFP4BlockScaling recipe applies them to the column-wise copies of the
  // activations and the output gradients unless NVTE_NVFP4_DISABLE_RHT=1 (its default since
  // TE 2.8; Megatron-Core builds the recipe with its defaults). Each such cast then reads its
  // 16-bit input three times instead of once (OpShape::nvfp4_rht; --no-nvfp4-rht turns it off).
  bool nvfp4_rht = true;
  // Parameters per data-parallel gradient bucket where the run's configuration sets one
  // (Megatron-Core bucket_size; plan/dp_buckets.h); 0 = the framework's [data_parallel]
  // bucket_params.
  double dp_bucket_params = 0;
  // NCCL channels (CTAs) the context-parallel communicator may use where the run's NCCL
  // configuration caps them (MLPerf's custom_communicator_cta.yaml: cp max_ctas 1): each CP ring
  // step then moves at most this many channels x the family's per-channel rate
  // ([overlap] p2p_channel_gb_per_s); 0 = no cap (NCCL's own channels).
  int cp_comm_channels = 0;
  // TP collectives overlapped with GEMMs as far as the GPU family's software does (the
  // efficiency entry's tp_comm_fraction); false = fully exposed.
  bool tp_comm_overlap = true;
  // Pipeline split counting the embedding and the output head (with the loss) as one layer
  // each: the L + 2 slots are split evenly over the pp × vp chunks, so the first and last
  // chunks carry fewer decoder layers (Megatron-Core --account-for-embedding-in-pipeline-split
  // and --account-for-loss-in-pipeline-split; Llama 3 405B, arXiv:2407.21783 sec. 3.3.2: 126
  // layers on 16 stages, one layer fewer on the first and the last). false = the L decoder
  // layers split evenly, the embedding and head added on top.
  bool pp_embedding_head_slots = false;
  // Decoder layers per pipeline chunk (pp × vp entries, Megatron's chunk order v·pp + rank)
  // where the run sets an explicit layout (Megatron-Core --pipeline-model-parallel-layout,
  // megatron/core/transformer/pipeline_parallel_layer_layout.py; Megatron-Bridge's DeepSeek-V3
  // and Kimi-K2 recipes): the embedding sits on chunk 0 and the output head with the loss on
  // the last chunk, as the layout's `E` and `L`. plan/pp_layout.h parses the grammar. Empty =
  // the even split (or pp_embedding_head_slots).
  std::vector<int> pp_layout_layers;
  // DeepSeek-V3's multi-token-prediction depths the run trains (Megatron-Core --mtp-num-layers;
  // arXiv:2412.19437 sec. 2.2): per depth a projection [emb; h] 2h -> h, one decoder layer of
  // the model's last layer kind and a second pass of the output head and the loss
  // (workload/mtp_ops.h). 0 = none; at most the model's mtp_layers.
  int mtp_layers = 0;
  // The pipeline chunk that holds the MTP block (the layout's `m`); -1 = the last chunk
  // (Megatron-Core's mtp_on_this_rank without a layout).
  int mtp_chunk = -1;
  MoeOverlap moe_overlap = MoeOverlap::none;
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;  // copies per token in the EP AllToAll
  // Router load imbalance: tokens of the most loaded expert-parallel rank / the mean. The
  // slowest rank sets every MoE layer's pace. 1 = balanced routing, as the reference
  // benchmarks force it (Megatron-Bridge performance summary: "token distribution
  // force-balanced across experts").
  double moe_imbalance = 1.0;
  // Bits of Adam's moments m and v (--optimizer-state-bits): 32 = fp32, mixed-precision Adam
  // as ZeRO counts it; 16 = bf16 (Megatron-LM --exp-avg-dtype / --exp-avg-sq-dtype bf16);
  // 8 = block-wise 8-bit (Dettmers et al. 2022). The fp32 master weights stay
  // (cost/memory.h adam_moment_bytes).
  int optimizer_state_bits = 32;
  // fp32 master weights and Adam states in host memory, the update on the CPU, gradients down
  // and updated weights up over the host link each step (ZeRO-Offload, Ren et al. 2021,
  // arXiv:2101.06840; Megatron-Core --optimizer-cpu-offload). No delayed parameter update.
  bool offload_optimizer = false;
  // Decoder layers per pipeline rank whose saved activations go to host memory for the
  // forward-to-backward interval (Megatron-Core --cpu-offloading-num-layers;
  // plan/activation_offload.h). 0 = none.
  int offload_activation_layers = 0;
  // Element-wise chains (RMSNorm, RoPE, SwiGLU) as eager PyTorch runs them, one kernel per op
  // (--elementwise eager; OpShape::eager_elementwise). false = fused kernels (Transformer
  // Engine, torch.compile), the reference the GPU families' fractions were fitted on.
  bool eager_elementwise = false;

  int gpus() const { return tp * pp * dp * cp; }
  int shard_group() const { return dp_shard > 0 ? dp_shard : dp; }
  int global_batch_seqs() const { return global_batch > 0 ? global_batch : dp * micro_batch; }
  int micro_batches() const { return global_batch_seqs() / (dp * micro_batch); }
  friend bool operator==(const Plan&, const Plan&) = default;
};

// Tokens per sequence under the plan: its seq_len, or the model's max_seq_len where that is 0.
inline int plan_seq_len(const Plan& p, const ModelSpec& m) {
  return p.seq_len > 0 ? p.seq_len : static_cast<int>(m.max_seq_len);
}

}  // namespace gpuplan
