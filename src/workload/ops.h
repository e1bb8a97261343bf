// The ops of one transformer layer (and of the embedding and output head) as one GPU runs
// them for one micro-batch: GEMM shapes M×N×K, FLOPs and HBM bytes, forward and backward,
// after tensor, context and expert parallelism have cut them. Pure arithmetic on the shapes;
// timing them is cost/roofline.h's job. Formulas and sources: docs/model/training.md.
#pragma once

#include <array>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "core/precision.h"
#include "workload/model.h"
#include "workload/scaling.h"

namespace gpuplan {

// How an op is costed: a GEMM (tensor cores, shape-dependent efficiency), fused attention
// (FlashAttention style), or a memory-bound kernel (norms, element-wise, softmax, optimizer).
enum class OpKind { gemm, attention, memory };

// Which part of the layer an op belongs to (for breakdowns and selective recompute).
enum class OpGroup { attention, mlp, moe, norm, head };

// Megatron-Core's recompute modules (--recompute-modules; TransformerConfig.recompute_modules
// under recompute_granularity "selective", megatron/core/transformer/transformer_config.py at
// core_v0.16.0): the parts of a layer whose forward is rerun in the backward instead of saved.
// Bits of Op::modules and Plan::recompute_modules.
enum RecomputeModule : std::uint8_t {
  kRecomputeLayernorm = 1,   // "layernorm": the input and pre-MLP norms
  kRecomputeMoeAct = 2,      // "moe_act": the routed experts' activation
  kRecomputeMoe = 4,         // "moe": the whole MoE block, its AllToAll included
  kRecomputeCoreAttn = 8,    // "core_attn": the attention kernel
  kRecomputeMlaUpProj = 16,  // "mla_up_proj": MLA's up-projections and their RoPE
  kRecomputeMlp = 32,        // "mlp": a dense MLP
};
// Megatron-Core's name of one module → its bit; nullopt for another name.
std::optional<std::uint8_t> parse_recompute_module(std::string_view name);
// The modules as Megatron-Core names them, joined by "," in bit order ("" = none).
std::string recompute_modules_name(std::uint8_t modules);

// Megatron-Core's CUDA-graph scopes (--cuda-graph-scope, CudaGraphScope in
// megatron/core/transformer/enums.py at core_v0.16.0) under --cuda-graph-impl
// "transformer_engine" (make_graphed_callables per layer and micro-batch) or "local": the parts
// of a layer captured as one graph, whose kernels the host issues as one graph launch.
// Bits of Plan::cuda_graph_scope (plan/cuda_graphs.h says which ops each covers).
enum CudaGraphScope : std::uint8_t {
  kGraphAttn = 1,             // "attn": the attention block (input norm to residual)
  kGraphMlp = 2,              // "mlp": a dense layer's MLP block (pre-MLP norm to residual)
  kGraphMoeRouter = 4,        // "moe_router": a MoE layer's pre-MLP norm, router and top-k
  kGraphMoePreprocess = 8,    // "moe_preprocess": the dispatcher's preprocessing, up to its host sync
  kGraphMamba = 16,           // "mamba": a Mamba mixer block
  kGraphFullIteration = 32,   // "full_iteration": the whole forward-backward ("local" only)
};
// Megatron-Core's name of one scope → its bit; nullopt for another name ("moe", drop-and-pad
// MoE only, is not modelled: the MoE layers here are dropless).
std::optional<std::uint8_t> parse_cuda_graph_scope(std::string_view name);
// The scopes as Megatron-Core names them, joined by "," in bit order ("" = none).
std::string cuda_graph_scope_name(std::uint8_t scope);

struct Op {
  const char* name = "";  // "qkv_proj", "attention", "mlp_up", ...; static strings
  OpKind kind = OpKind::memory;
  OpGroup group = OpGroup::norm;
  // GEMMs: one GEMM's forward shape, output M×N, reduction K; `count` GEMMs of that shape
  // (the local experts of a grouped GEMM). Backward runs dgrad (M×K, reduce N) and wgrad
  // (K×N, reduce M): twice the forward FLOPs. Attention: m = keys per query, n = local
  // heads, k = query/key width.
  double m = 0;
  double n = 0;
  double k = 0;
  double count = 1;
  bool low_precision = false;  // runs in the plan's GEMM precision (fp8) rather than bf16/fp16
  bool routed_expert = false;  // weights sharded by expert parallelism (not by TP)
  bool masked = false;         // attention given a materialized mask (OpShape::attention_mask_materialized)
  // The `count` GEMMs run as one batched kernel (torch.bmm / baddbmm over batch × heads): one
  // host issue, and their tiles fill the SMs together (else one launch per GEMM, at most four
  // in flight: cost/roofline.cpp expert_gemms_in_flight).
  bool batched = false;
  // Rerun in the backward pass under selective recompute (attention core, norms, activation
  // functions, MLA up-projections: cheap to redo, large to keep).
  bool selective = false;
  // Autograd keeps a tensor of this op for the backward (a residual add keeps none: the
  // gradient of a sum needs no input). Where a checkpoint's recompute may stop
  // (cost/checkpoint_recompute.h).
  bool saves_for_backward = true;
  std::uint8_t modules = 0;  // the RecomputeModule parts this op belongs to
  // Kernels the host issues for a memory-bound op that the framework runs as an eager chain
  // (one per PyTorch op: Megatron-Core's unfused YaRN RoPE, the GLU clamps, the per-expert
  // bias of workload/ops.cpp), forward and backward; 0 = one kernel forward and two backward,
  // a fused kernel's. GEMMs and attention ignore them (cost/roofline.h op_time).
  std::uint16_t kernels_fwd = 0;
  std::uint16_t kernels_bwd = 0;
  double fwd_flops = 0;
  double bwd_flops = 0;
  double exps = 0;       // attention: softmax exponentials of the forward, one per score
  double fwd_bytes = 0;  // HBM traffic
  double bwd_bytes = 0;
  double params = 0;  // weights this op holds on this GPU
};

inline constexpr int kMaxLayerOps = 29;  // 28 before the nvfp4_rht op (twelfth session)

struct LayerOps {
  // A slot is constructed when add() hands it out: a layer fills a dozen of the kMaxLayerOps,
  // and constructing all of them for every LayerOps was a tenth of the training evaluator's
  // time (docs/performance.md). Only ops[0, count) are ever read.
  LayerOps() {}  // NOLINT(modernize-use-equals-default): leaves the slots unconstructed
  union {
    std::array<Op, kMaxLayerOps> ops;
  };
  int count = 0;
  // Ops [0, host_sync_at) run before the forward pass's host-device synchronisation, the rest
  // after it; -1: no synchronisation. A dropless MoE layer copies its per-expert token counts to
  // the host after routing: they size the AllToAll and the grouped GEMM's per-expert splits
  // (Megatron-Core's token dispatcher; Transformer Engine GroupedLinear takes `m_splits` as a
  // host list).
  int host_sync_at = -1;

  // Inline, so that the caller's stores to the new op replace its default values instead of
  // following them (an op builder sets most of the fields).
  [[gnu::always_inline]] Op& add() { return *::new (&ops[static_cast<std::size_t>(count++)]) Op{}; }
  // An op given whole (designated initializers): each field stored once, not cleared first.
  [[gnu::always_inline]] Op& add(const Op& op) { return *::new (&ops[static_cast<std::size_t>(count++)]) Op(op); }
  const Op* begin() const { return ops.data(); }
  const Op* end() const { return ops.data() + count; }
  double params() const;
  double fwd_flops() const;
  double bwd_flops() const;
};

// One GPU's share of a micro-batch, and how the layer is split.
struct OpShape {
  double micro_batch = 1;   // sequences
  double seq_len = 2048;    // full sequence length (the attention span)
  int tp = 1;               // tensor parallel: heads and FFN columns split tp ways
  int cp = 1;               // context parallel: each GPU holds seq_len / cp of every sequence
  int ep = 1;               // expert parallel: routed experts split ep ways (expert TP = 1)
  bool sp = false;          // sequence parallel: norms and dropout split tp ways
  // Router load imbalance: rows of the most loaded expert-parallel rank / the mean (>= 1). The
  // routed-expert ops are that rank's (it sets the pace); their FLOPs stay the mean.
  double moe_imbalance = 1;
  // DeepSeek-V3's token dispatch (DeepEP, as the dualpipe schedule runs it): the dispatch
  // kernel reads each token where it is and sends it once per destination, so there is no
  // sender-side permute, and with fp8 linear layers the tokens are cast to fp8 before the
  // dispatch, which then moves and sorts 1-byte elements; the combine stays 16-bit
  // (arXiv:2412.19437 sec. 3.2.2 and 3.3.2; deepseek-ai/DeepEP README, fp8 dispatch).
  bool moe_fused_dispatch = false;
  // Megatron-Core's flex dispatcher (DeepEP or HybridEP, plan MoeDispatcher::flex): the same
  // layout-driven dispatch without the fp8 cast, so no sender-side permute either (the
  // dispatch kernel reads each token in place and writes it once per destination rank;
  // megatron/core/transformer/moe/token_dispatcher.py MoEFlexTokenDispatcher, core_v0.16.1:
  // the tokens enter fused_dispatch / hybrid_ep_dispatch unpermuted, and the receiver permutes
  // what arrived).
  bool moe_flex_dispatch = false;
  bool moe_layout_dispatch() const { return (moe_fused_dispatch || moe_flex_dispatch) && ep > 1; }
  // Its tokens go out in fp8 (the linear layers run in a lower precision than the activations).
  bool fp8_moe_dispatch() const { return moe_fused_dispatch && ep > 1 && gemm != act; }
  Precision gemm = Precision::bf16;  // precision of the linear layers (fp8 with TE recipes)
  Precision act = Precision::bf16;   // activations, attention and the output head
  // How the low-precision GEMM inputs carry their scales (workload/scaling.h).
  ScalingRecipe scaling = ScalingRecipe::delayed;
  // DeepSeek-V3's low-precision activation cache (report sec. 3.3.3): the experts' SwiGLU
  // inputs are kept in the GEMM format and the SwiGLU output recomputed in the backward; the
  // attention output, read back by both the output projection and the attention backward, is
  // kept once in a 12-bit format (E5M6).
  bool low_precision_act_cache = false;
  // NVFP4 with random Hadamard transforms on the weight-gradient inputs (Plan::nvfp4_rht, fp4
  // GEMMs only). Transformer Engine's NVFP4Quantizer::quantize_impl (v2.11,
  // transformer_engine/pytorch/csrc/quantizer.cpp) then runs three kernels over each cast
  // input instead of one: nvte_hadamard_transform_amax (the row-wise amax and the amax of
  // RHT(x^T); it runs even where the producer computed the amax, quantize_with_amax), the
  // row-wise cast (nvte_quantize_v2) and the fused column-wise RHT cast
  // (nvte_hadamard_transform_cast_fusion_columnwise): two more reads of the 16-bit input than
  // the one cast the other recipes are charged (the nvfp4_rht op of workload/ops.cpp).
  bool nvfp4_rht = false;
  // Element-wise chains run op by op as eager PyTorch does (no torch.compile, no fused
  // kernels): RMSNorm, RoPE and SwiGLU become several kernels, each streaming its tensor
  // through HBM, some in fp32 (workload/eager_elementwise.h). false = one fused kernel per
  // chain (Transformer Engine, Megatron's fused kernels, torch.compile). LayerNorm and GeLU
  // are single native kernels either way.
  bool eager_elementwise = false;
  // RoPE runs as the framework's op-by-op chain although the other element-wise chains are
  // fused: the framework's fused RoPE kernel cannot apply the model's YaRN attention factor
  // (Megatron-Core calls Transformer Engine's fused RoPE only when mscale = 1; otherwise
  // _apply_rotary_pos_emb_bshd, workload/eager_elementwise.h megatron_rope_*_bytes).
  bool rope_unfused = false;
  // A clamped GLU (ModelSpec::glu_clamp) whose clamp runs as separate kernels before the fused
  // activation: Megatron-Core's weighted_bias_quick_geglu_impl clamps both halves of the
  // experts' fc1 output and concatenates them eagerly (`expert_act_clamp`).
  bool glu_clamp_unfused = false;
  // The attention kernel is handed a materialized causal mask rather than its causal flag
  // (transformers under torch.compile, Framework::compiled_mask_materialized): it computes all
  // seq_len keys of every query and masks them, at the masked rate (cost/roofline.cpp).
  bool attention_mask_materialized = false;
  // Attention as the separate kernels of Megatron-LM 2021-22 and Megatron-DeepSpeed rather than
  // one fused kernel (Framework::attention_materialized): Q·Kᵀ into a [b·heads, s, s] tensor
  // (torch.baddbmm), the fused scale + causal mask + softmax kernel, dropout on the
  // probabilities (`attention_probs_dropout`), then probabilities · V (torch.bmm); the s×s
  // tensors go through HBM and the softmax output, the dropout mask and the dropped
  // probabilities are kept for the backward (workload/ops.cpp materialized_attention).
  bool attention_materialized = false;
  bool attention_probs_dropout = false;
  // Bytes per element of a quantised GEMM input, scales included.
  double gemm_in_bytes() const { return scaled_element_bytes(gemm, scaling); }

  double tokens() const { return micro_batch * seq_len / cp; }  // rows of every GEMM
};

// Average keys each query attends to: (s+1)/2 for causal attention; for a sliding window w,
// every query past the first w sees w keys; with `chunked` (Llama 4's chunked attention) a
// query sees only the keys of its own chunk of w tokens, up to itself.
double causal_keys_per_query(double seq_len, double window, bool chunked = false);

// The ops of decoder layer `layer_idx` (dense or MoE, full or sliding-window attention, or a
// hybrid's Mamba mixer; a Nemotron-H layer holds only its mixer or only its MLP).
void build_layer_ops(const ModelSpec& model, std::int64_t layer_idx, const OpShape& shape, LayerOps& out);

// Token embedding (first pipeline stage) and final norm + logits + cross-entropy loss (last
// stage). The vocabulary is split tp ways (Megatron's vocab-parallel embedding and loss).
void build_embedding_ops(const ModelSpec& model, const OpShape& shape, LayerOps& out);
void build_head_ops(const ModelSpec& model, const OpShape& shape, LayerOps& out);

bool is_sliding_layer(const ModelSpec& model, std::int64_t layer_idx);

// Layers with the same ops share a kind: 0 dense, 1 dense sliding-window, 2 MoE, 3 MoE
// sliding-window (attention + MLP); hybrids add 4 Mamba + dense, 5 Mamba + MoE, 6 Mamba alone,
// 7 attention alone, 8 sliding-window attention alone, 9 MLP alone, 10 MoE alone. The
// evaluator costs one layer of each kind and counts them per stage.
inline constexpr int kLayerKinds = 11;
int layer_kind(const ModelSpec& model, std::int64_t layer_idx);

}  // namespace gpuplan
