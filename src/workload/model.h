// A transformer LLM's shape: dense, GQA, MoE (shared experts, dense first layers), MLA and
// sliding-window attention. Built from a Hugging Face config.json (hf_config.cpp) or a zoo
// entry in data/models/ (whose [config] table uses the same keys).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/provenance.h"

namespace gpuplan {

enum class MlpKind { gelu, swiglu, relu2 };        // GeLU/ReLU² = 2 matrices, SwiGLU = 3
enum class NormKind { layernorm, rmsnorm };
enum class PositionKind { learned, rope, alibi };  // learned adds a position table

struct MlaShape {  // DeepSeek-V2/V3 multi-head latent attention
  std::int64_t q_lora_rank = 0;  // 0 = queries projected directly
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
};

struct MoeShape {
  std::int64_t experts = 0;         // routed experts per MoE layer; 0 = dense model
  std::int64_t shared_experts = 0;  // always-active experts
  std::int64_t top_k = 0;           // routed experts per token
  std::int64_t expert_ffn_hidden = 0;
  std::int64_t dense_layers = 0;    // first layers that are dense (DeepSeek-V3: 3)
  std::int64_t layer_freq = 1;      // every n-th layer is MoE (1 = all after dense_layers)
  bool router_bias = false;
};

struct ModelSpec {
  std::string id;  // "llama3.1-8b"
  std::vector<std::string> aliases;
  std::string name;
  std::string family;      // llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, deepseek_v3, gpt2, gpt_oss, mpt, nemotron
  std::string model_type;  // Hugging Face model_type it was read as

  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;    // hidden / heads unless the config says otherwise
  std::int64_t ffn_hidden = 0;  // dense MLP intermediate size
  std::int64_t vocab = 0;
  std::int64_t max_seq_len = 0;
  MlpKind mlp = MlpKind::swiglu;
  NormKind norm = NormKind::rmsnorm;
  PositionKind position = PositionKind::rope;
  bool tied_embeddings = false;
  bool qkv_bias = false;
  bool attn_out_bias = false;
  bool mlp_bias = false;
  bool qk_norm = false;  // Qwen3: RMSNorm on q and k per head
  // Attention and MLP side by side on the same input, their outputs added to the residual
  // together (GPT-J, GPT-NeoX, PaLM sec. 2, Falcon; MegaScale, Jiang et al. 2024 sec. 3.1):
  // under tensor parallelism the two row-parallel partial sums are reduced once per layer.
  bool parallel_block = false;
  bool norm_bias = false;      // LayerNorm with a bias vector (GPT-2, Nemotron); MPT's no_bias drops it
  bool attn_sinks = false;     // gpt-oss: one learned attention-sink logit per head per layer
  double rotary_fraction = 1;  // share of head_dim rotated by RoPE (Nemotron partial_rotary_factor 0.5)

  bool mla = false;
  MlaShape mla_shape;
  MoeShape moe;

  // Sliding-window attention: window size and which layers use it (gpt-oss alternates).
  std::int64_t sliding_window = 0;
  std::vector<bool> layer_is_sliding;  // empty = no sliding layers
  // Explicit MoE/dense pattern when dense_layers/layer_freq cannot say it (Qwen3-MoE
  // mlp_only_layers; DeepSeek moe_layer_freq > 1); empty = use dense_layers/layer_freq.
  std::vector<bool> layer_is_moe;

  // Extra prediction heads (DeepSeek-V3 multi-token prediction); not in the headline count.
  std::int64_t mtp_layers = 0;

  double published_params = 0;         // total parameters as published, for checks
  double published_active_params = 0;  // MoE: active per token
  // How the publisher counted active parameters: OpenAI (gpt-oss) and DeepSeek leave out the
  // input-embedding table (a lookup); Mistral and Qwen count it.
  bool published_active_excludes_input_embedding = false;
  std::string notes;
  Provenance provenance;

  bool is_moe() const { return moe.experts > 0; }
  bool is_moe_layer(std::int64_t layer_idx) const {
    if (!is_moe()) return false;
    if (!layer_is_moe.empty()) {
      return layer_idx >= 0 && layer_idx < static_cast<std::int64_t>(layer_is_moe.size()) &&
             layer_is_moe[static_cast<std::size_t>(layer_idx)];
    }
    return layer_idx >= moe.dense_layers && (layer_idx - moe.dense_layers) % moe.layer_freq == 0;
  }
  bool is_sliding_layer(std::int64_t layer_idx) const {
    return sliding_window > 0 && layer_idx >= 0 && layer_idx < static_cast<std::int64_t>(layer_is_sliding.size()) &&
           layer_is_sliding[static_cast<std::size_t>(layer_idx)];
  }
};

}  // namespace gpuplan
