// Parameter counts, FLOPs per token, weight bytes and KV-cache bytes of a model: pure
// functions of its ModelSpec, each with its formula and source beside the code (params.cpp).
#pragma once

#include <cstdint>

#include "core/precision.h"
#include "workload/model.h"

namespace gpuplan {

// One decoder layer's parameters, by part.
struct LayerParams {
  double attention = 0;       // projection weights: Q, K, V, O (MLA: its down and up projections)
  double mamba = 0;           // Mamba mixer projections (in, x, Δ, out: workload/mamba.h)
  double mamba_other = 0;     // Mamba conv1d, A, D, Δ bias, inner norms (element-wise, no matmul)
  double mlp = 0;             // dense MLP weights (2 matrices, or 3 when gated)
  double experts = 0;         // every routed expert's weights
  double experts_active = 0;  // the top-k routed experts one token runs through
  double shared_experts = 0;  // always-active experts (DeepSeek)
  double router = 0;          // gate weights (experts × hidden)
  double norms = 0;           // norm weights (and LayerNorm biases; MLA latent norms; Qwen3 q/k norms)
  double biases = 0;          // linear-layer biases (all experts') and attention sinks
  double biases_active = 0;   // the same with only the top-k experts' biases

  double total() const {
    return attention + mamba + mamba_other + mlp + experts + shared_experts + router + norms + biases;
  }
  double active() const {
    return attention + mamba + mamba_other + mlp + experts_active + shared_experts + router + norms + biases_active;
  }
  // Weights a token's activations are multiplied by (norms and biases are element-wise).
  double matmul_active() const { return attention + mamba + mlp + experts_active + shared_experts + router; }
  LayerParams& operator+=(const LayerParams& other);
};

enum class FfnKind { dense, moe, none };

struct ParamCounts {
  double total = 0;               // every parameter of the published count (DeepSeek's MTP module excluded)
  double active = 0;              // used per token: all but the idle routed experts, embedding tables included
  double embedding = 0;           // input embedding + output head (when untied) + learned positions
  double input_embedding = 0;     // vocab × hidden
  double output_head = 0;         // vocab × hidden; 0 when tied to the input embedding
  double position_embedding = 0;  // learned absolute positions (GPT-2/GPT-3 style)
  double final_norm = 0;
  double non_embedding = 0;       // total − embedding
  double matmul_active = 0;       // weights one token's forward pass multiplies, output head included
  LayerParams layers;             // every layer summed
  std::int64_t dense_layers = 0;  // how many layers are dense (hybrids: not MoE), and one of them
  LayerParams dense_layer;
  std::int64_t moe_layers = 0;  // how many are MoE, and one of them
  LayerParams moe_layer;
  double mtp = 0;  // DeepSeek multi-token-prediction module(s); not in `total`

  // Active parameters without the input-embedding table (a row lookup, no multiply): the
  // convention of OpenAI's gpt-oss and DeepSeek's model cards. Mistral and Qwen count it.
  double active_without_input_embedding() const { return output_head > 0 ? active - input_embedding : active; }
};

LayerParams layer_params(const ModelSpec& model, bool moe_layer);  // an attention layer
LayerParams layer_params(const ModelSpec& model, MixerKind mixer, FfnKind ffn);
LayerParams layer_params_at(const ModelSpec& model, std::int64_t layer_idx);
ParamCounts count_params(const ModelSpec& model);

// Attention score (QK^T) and value (PV) FLOPs per token, summed over layers and averaged over
// the positions of one sequence of `seq_len` tokens; `causal` counts only the keys each query
// sees. Sliding-window layers see at most the window.
double attention_flops_per_token(const ModelSpec& model, std::int64_t seq_len, bool causal = true);

// The selective scans of every Mamba layer per token, forward (workload/mamba.h); 0 for
// attention-only models.
double mamba_scan_flops_per_token(const ModelSpec& model);

// Forward pass per token of a `seq_len` sequence: 2 × matmul_active + attention (+ Mamba scans).
double forward_flops_per_token(const ModelSpec& model, std::int64_t seq_len);
// One training step per token: 3 × forward (the 6N rule, plus 3 × attention). The one
// definition of training model FLOPs: the evaluator's MFU, the search's ranking and the
// reports all use it.
double train_flops_per_token(const ModelSpec& model, std::int64_t seq_len);
// The same, with count_params(model).matmul_active precomputed (the evaluator's hot path).
double train_flops_per_token(const ModelSpec& model, double matmul_active_params, std::int64_t seq_len);
// One generated token attending to `context` cached tokens (itself included).
double decode_flops_per_token(const ModelSpec& model, std::int64_t context);

// Every parameter stored at precision `p` (bf16 2 bytes, fp8/int8 1, fp4/int4 0.5).
double weight_bytes(const ModelSpec& model, Precision p);

// KV cache of one full-attention layer per token: 2·kv_heads·head_dim·bytes (MHA/GQA), or
// (kv_lora_rank + qk_rope_head_dim)·bytes (MLA).
double kv_cache_bytes_per_token_per_layer(const ModelSpec& model, Precision p);
// All attention layers, every layer keeping every token (no sliding-window cap).
double kv_cache_bytes_per_token(const ModelSpec& model, Precision p);
// One sequence holding `context` tokens, sliding-window layers keeping only the window, Mamba
// layers their fixed recurrent state.
double kv_cache_bytes(const ModelSpec& model, std::int64_t context, Precision p);

}  // namespace gpuplan
