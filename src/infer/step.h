// Time of one engine step on one pipeline stage: the linear layers (weights streamed from HBM
// vs tensor-core FLOPs), attention (KV cache streamed vs FLOPs), TP/EP collectives and the
// engine's fixed per-step and per-layer costs. A step mixes decodes (one token each, attending
// to their cached context) with prefill tokens (prompt chunks). Decode and prefill are the
// two ends of this one function. Formulas and sources: docs/model/inference.md §4.
#pragma once

#include "infer/infer_context.h"
#include "infer/infer_plan.h"

namespace gpuplan {

struct StepLoad {
  double decode_seqs = 0;     // sequences producing one token this step
  double decode_context = 0;  // tokens each of them attends to (average)
  double prefill_tokens = 0;  // prompt tokens processed this step
  double prefill_span = 0;    // prompt length those tokens belong to (sets their attention span)
  // MoE: the share of routed experts the step reads; < 0 = from its tokens (uniform top-k
  // routing). A steady state that spreads prompt tokens evenly over its steps sets the average
  // of its real calendar (expert_hit_of_calendar) so prompts do not inflate decode steps.
  double expert_hit = -1;
  // The prefill tokens are a steady state's mean over its steps (batching.cpp `continuous`), not
  // a step's fixed prompts: under attention DP which ranks prefill in a step is random, and the
  // busiest rank's share is the expected maximum of their counts (attention_dp_spread.h).
  bool spread_prompts = false;
};

// The mixture-of-experts mechanisms of one step, each a named term (docs/model/moe-serving.md);
// all zero (efficiency and imbalance 1) for a dense model. The times are already inside the
// StepCost totals (linear, elementwise, communication); these say how much of each is MoE.
struct MoeStepTerms {
  double router_imbalance = 1;   // busiest EP rank's routed tokens / the mean (1 without EP)
  double tokens_per_expert = 0;  // the step's tokens × top_k × imbalance / experts
  double experts_touched = 0;    // share of the routed experts some token of the step reads
  double expert_weight_bytes = 0;  // per GPU: routed-expert weights read (the touched ones)
  double expert_weight_s = 0;      // those bytes at the weight-streaming bandwidth
  double grouped_gemm_efficiency = 1;  // grouped expert GEMM vs one dense GEMM over the tokens
  double expert_padding_s = 0;   // GEMM time the part-empty tiles at small per-expert M add
  double imbalance_s = 0;        // expert GEMM time the busiest EP rank adds over the mean
  // The grouped kernel's measured costs (cost/grouped_gemm.h): its tile waves' fixed cost, in
  // linear_s beside the roofline; and the expert weights' extra streaming time where the SMs
  // pull less than the weight-streaming rate, in linear_mem_s. Zero on a family not measured.
  double grouped_tile_s = 0;
  double grouped_stream_s = 0;
  double permute_bytes = 0;      // per GPU: routing permutes (each token copied to its k experts and back)
  double permute_s = 0;          // those bytes at HBM bandwidth
  double dispatch_combine_s = 0; // expert-parallel all-to-all (dispatch + combine), in comm_s
  // The layer's kernels besides the expert GEMMs (top-k, sort, GEMM setup, gather, activation,
  // combine; the engine's `[moe] routing_kernels`), each at least the kernel floor: the time they
  // add over the permute and activation bytes already in elementwise_s, all MoE layers of the
  // stage (infer/moe_routing.h). In elementwise_s.
  double routing_kernels = 0;    // kernels per MoE layer
  double routing_kernels_s = 0;
  // The routed-expert GEMMs at the precision they multiply in (expert_gemm_precision; W4A8 for
  // a published MXFP4 checkpoint on Blackwell, W4A16 on GPUs without FP4 tensor cores), before
  // padding and imbalance: expert FLOPs / that precision's achievable rate. In linear_compute_s.
  Precision expert_gemm_precision = Precision::bf16;
  double expert_compute_s = 0;
  // FP4 (or FP6) experts widened to 16 bits inside the GEMM on a GPU without those tensor cores
  // (weight-only, W4A16: TensorRT-LLM's Triton MoE backend and vLLM on Hopper): the kernel's rate
  // on full tiles as a fraction of the 16-bit rate (the GPU family's measured
  // `[gemm.weight_upcast]`; 1 = no upcast or not measured), and the time that adds over
  // expert_compute_s, (1 / fraction − 1) × expert_compute_s: charged on the routed rows, not on
  // padded tiles (docs/model/moe-serving.md, "FP4 weights widened in the kernel"). In
  // linear_compute_s.
  double upcast_rate_fraction = 1;
  double upcast_s = 0;
};

struct StepCost {
  double weight_bytes = 0;      // per GPU, streamed once per step
  double kv_bytes = 0;          // per GPU, read by the decodes
  double linear_flops = 0;      // per GPU
  double attention_flops = 0;   // per GPU
  double linear_mem_s = 0;      // weight bytes / achievable bandwidth
  double linear_compute_s = 0;  // linear FLOPs / achievable GEMM rate
  double kv_mem_s = 0;
  // Decode attention at a head dim under 128 (infer/decode_kv_rate.h): the factor its KV read
  // takes over the bandwidth-bound time (1.151 at head dim 64, 1 at 128 and above and for MLA),
  // and the time that adds to the decodes' KV read, in kv_mem_s.
  double kv_head_dim_factor = 1;
  double kv_head_dim_s = 0;
  double attention_compute_s = 0;
  double linear_s = 0;     // max of the two
  double attention_s = 0;  // decode attention (max of KV and FLOPs) + prefill attention FLOPs
  double elementwise_bytes = 0;  // per GPU: norms, residual adds, activation, RoPE, MoE permutes
  double elementwise_s = 0;      // those bytes / achievable bandwidth
  double comm_s = 0;       // TP AllReduce / EP AllToAll / PP send of this stage
  double overhead_s = 0;   // engine step + per-layer fixed costs
  // The executor's host work for this step (Engine::host_per_seq_s × the sequences the busiest
  // attention-DP rank's executor handles: decodes and prompts), which the overlap scheduler runs
  // beside the GPU's previous step; host_wait_s is what it adds to the step, max(0, host_s − the
  // GPU's time), in total_s (docs/model/inference.md, "Host time per sequence").
  double host_s = 0;
  double host_wait_s = 0;
  // The output head's GEMM (logit rows × vocab × hidden / tp) at the non-expert layers' rate
  // (16-bit for a published MXFP4 checkpoint, linear_weight_format): its share of
  // linear_compute_s, named because a large vocabulary at large batch makes it large (gpt-oss).
  double output_head_s = 0;
  // Attention DP: prompt tokens the busiest rank prefills in this step, and the mean over the
  // ranks (the step's prompt tokens / attention_dp); equal without attention DP. For a steady
  // state's mean step (StepLoad::spread_prompts) the busiest is the expected maximum of the
  // ranks' unco-ordinated prompt counts (attention_dp_spread.h); the non-expert layers, the
  // prefill attention and the dispatch cost that rank's tokens.
  double adp_busiest_prefill_tokens = 0;
  double adp_mean_prefill_tokens = 0;
  // CUDA-graph padding (infer/graph_padding.h): an engine that replays CUDA graphs captured at
  // fixed batch sizes with padding on runs a pure-decode step of b sequences as the graph of the
  // next captured size, the extra rows dummy sequences of one token. What that adds to a steady
  // state's mean step: the share of its steps that carry no prompt × (the padded decode step −
  // the unpadded one). In total_s; 0 without captured sizes (docs/model/inference.md §4).
  double graph_padding_s = 0;
  double graph_padded_decodes = 0;  // the padded pure-decode step's sequences (0 = none padded)
  // The precision the attention kernels multiply in (attention_math_precision): FP8 only where
  // the KV cache is FP8 and the attention projections are quantised to FP8 or FP4; 16 bits for a
  // checkpoint that keeps its attention unquantised (gpt-oss) even over an FP8 KV cache. Sets the
  // rate of attention_compute_s (docs/model/inference.md §4, "Attention math precision").
  Precision attention_precision = Precision::bf16;
  // MLA decodes (infer/mla_decode.h): the absorbed form's FLOPs per cached key per layer, and the
  // tensor-core time its decodes' attention takes beyond the multi-head form's FLOPs at the same
  // rate (inside attention_compute_s; attention_s combines it with the latent's reads). 0 without
  // MLA or decodes (docs/model/inference.md §4, "MLA decode").
  double mla_decode_flops_per_key_layer = 0;
  double mla_decode_absorbed_s = 0;
  // A native FP8 checkpoint with block scales (quantization_config quant_method "fp8":
  // DeepSeek-V3/R1, 128 x 128 weight blocks) served at FP8 on a GPU whose tensor cores take no
  // scales (Hopper): its GEMMs run at this fraction of the per-tensor FP8 rate
  // (fp8_block_scale_rate_fraction; 1 = no block scales), and the time that adds
  // over the per-tensor rate, (1 / fraction − 1) × the FP8 GEMMs' compute (the non-expert GEMMs
  // but the output head, and the routed experts' rows). In linear_compute_s (docs/model/
  // inference.md §4, "FP8 block scales").
  double fp8_block_scale_rate_fraction = 1;
  double fp8_block_scale_s = 0;
  double total_s = 0;
  MoeStepTerms moe;        // the MoE share of the terms above
};

// Precision the linear layers run in: FP8/INT8/FP4 weights use the GPU's matching tensor
// cores where it has them; otherwise (and for INT4) weights are widened to 16-bit (weight-only
// quantisation: fewer bytes, same FLOP rate).
Precision gemm_precision(const Gpu& gpu, Precision weights);

// How the linear weights of `m` are stored and multiplied with --weights `weights` on `gpu`
// (docs/model/moe-serving.md, "Expert GEMM precision"). As gemm_precision and
// quantised_weight_bytes, except for a published MXFP4 checkpoint (the model's
// quantization_config, gpt-oss) served with --weights fp4: its experts are stored in MXFP4
// (0.53 B per weight) and multiplied with 8-bit activations where the GPU has FP4 tensor cores
// (TensorRT-LLM's Blackwell MoE backends: MXFP8 activations × MXFP4 weights), and the modules
// its config keeps unquantised (the attention) are stored and multiplied in 16 bits.
struct LinearWeightFormat {
  double expert_bytes = 2;      // per routed-expert weight
  double nonexpert_bytes = 2;   // per other layer weight (attention, dense MLP, shared experts)
  Precision expert_gemm = Precision::bf16;
  Precision nonexpert_gemm = Precision::bf16;
};
LinearWeightFormat linear_weight_format(const ModelSpec& m, const Gpu& gpu, Precision weights);

// Whether the routed experts, stored at `weights` as `wf` says, are FP4 or FP6 weights the GEMM
// widens to 16 bits (no such tensor cores on the GPU: weight-only, W4A16), not multiplied in an
// FP4/FP8 MMA (MoeStepTerms::upcast_rate_fraction).
bool experts_widen_fp4(const LinearWeightFormat& wf, Precision weights);

// Whether `m` served with --weights `weights` runs FP8 GEMMs with per-block scales: a native FP8
// checkpoint (quantization_config quant_method "fp8", DeepSeek-V3/R1's 128 x 128 weight blocks
// and 1 x 128 activation groups) at FP8 (StepCost::fp8_block_scale_s).
bool runs_fp8_block_scales(const ModelSpec& m, Precision weights);


// The precision the attention kernels (prefill FMHA and decode) multiply in on `gpu` with the
// KV cache at `kv` and the attention projections as `wf` stores them: FP8 where the GPU has FP8
// tensor cores, the KV cache is FP8 and the projections are FP8- or FP4-quantised (the query
// then comes out of an FP8-quantised QKV GEMM; TensorRT-LLM's FP8 context FMHA needs FP8 or NVFP4
// quantisation of the attention layer, tensorrt_llm/_torch/attention_backend/trtllm.py); 16 bits
// otherwise: an FP8 KV cache under 16-bit projections (gpt-oss's MXFP4 checkpoint keeps
// self_attn unquantised) is widened, not the query narrowed.
Precision attention_math_precision(const Gpu& gpu, const LinearWeightFormat& wf, Precision kv);

// Efficiency of the routed-expert GEMMs of a step carrying `tokens` tokens relative to one dense
// GEMM over the same tokens (in (0, 1]; 1 for dense models or without a GEMM shape model).
double expert_gemm_efficiency(const InferContext& ctx, const InferPlan& plan, double tokens);

// Share of the routed experts some of `tokens` tokens is routed to, 1 − (1 − k/E)^tokens
// (uniform top-k routing); 0 for dense models.
double expert_hit_fraction(const InferContext& ctx, double tokens);

// The mean share of routed experts read per step over a calendar of `steps` steps, of which
// `heavy_steps` carry `heavy_tokens` prompt tokens besides `decodes` decodes and the rest carry
// the decodes alone: prefill and decode expert traffic costed separately (docs/model/inference.md §4).
double expert_hit_of_calendar(const InferContext& ctx, double decodes, double heavy_tokens, double heavy_steps,
                              double steps);

// The load of the busiest attention-DP rank when `load` is split over `attention_dp` ranks:
// ⌈decodes / dp⌉ decodes and whole prompts (or chunks) per rank; `load` itself when dp ≤ 1.
// A load with spread_prompts: the expected busiest rank's prompts, span × E[max of dp Poisson
// counts of mean prompts / dp] (attention_dp_spread.h), at least the mean share.
StepLoad slowest_attention_dp_rank(const StepLoad& load, int attention_dp);

// One step of one pipeline stage (layers / pp) of `plan` carrying `load`.
StepCost step_cost(const InferContext& ctx, const InferPlan& plan, const StepLoad& load);

// The executor's host time for a step of `load` on one pipeline stage: Engine::host_per_seq_s ×
// the sequences (decodes and prompts, prefill_tokens / prefill_span of them) of the busiest
// attention-DP rank, whose executor handles only its own requests; every TP rank's executor
// handles all of its rank's. 0 for an engine without the term.
double step_host_s(const Engine& e, const InferPlan& plan, const StepLoad& load);

// Time of one collective of `bytes` (nccl-tests size) over `gpus` GPUs of one replica.
double tp_collective_s(const InferContext& ctx, CollectiveOp op, double bytes, int gpus);

}  // namespace gpuplan
