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
  // Width of the shared-expert block when it differs from shared_experts × expert_ffn_hidden
  // (Qwen2-MoE: one shared expert of shared_expert_intermediate_size); 0 = that product.
  std::int64_t shared_ffn_hidden = 0;
  bool shared_expert_gate = false;  // Qwen2-MoE: a sigmoid gate (hidden × 1) scales the shared expert
  // Group-limited routing (DeepSeek-V3 config n_group / topk_group): the routed experts form
  // `groups` equal groups and a token's top-k are drawn from its best `group_limit` groups only.
  // With the groups laid out one per node (DeepSeek-V3's EP 64 over 8 nodes) a token reaches at
  // most group_limit nodes (arXiv:2412.19437 sec. 2.1.2, "Node-Limited Routing"). 0 = no limit.
  std::int64_t groups = 0;
  std::int64_t group_limit = 0;

  std::int64_t shared_ffn() const { return shared_ffn_hidden > 0 ? shared_ffn_hidden : shared_experts * expert_ffn_hidden; }
};

// A selective state-space (Mamba) mixer: Mamba-1 (Gu & Dao 2023, arXiv:2312.00752; Jamba)
// or Mamba-2 (Dao & Gu 2024, arXiv:2405.21060; Nemotron-H). Formulas: workload/mamba.h.
struct MambaShape {
  int version = 0;              // 1 or 2; 0 = no Mamba layers
  std::int64_t d_inner = 0;     // expand × hidden (Mamba-2: heads × head_dim)
  std::int64_t d_state = 0;     // N: state size per channel (Mamba-1) or per head dim (Mamba-2)
  std::int64_t d_conv = 0;      // causal depthwise convolution width
  std::int64_t dt_rank = 0;     // Mamba-1: rank of the Δ projection
  std::int64_t heads = 0;       // Mamba-2: SSM heads (d_inner / head_dim)
  std::int64_t head_dim = 0;    // Mamba-2: P
  std::int64_t groups = 1;      // Mamba-2: B/C groups (n_groups)
  std::int64_t chunk = 0;       // Mamba-2: SSD chunk length Q
  bool conv_bias = true;
  bool proj_bias = false;       // in_proj / out_proj biases
  bool inner_norms = false;     // Jamba: RMSNorms on Δ (dt_rank), B and C (d_state each)
};

// What mixes tokens in a layer: attention, a Mamba mixer, or nothing (Nemotron-H's MLP-only
// layers).
enum class MixerKind : std::uint8_t { attention, mamba, none };

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
  // The context the model was pretrained at before its RoPE scaling stretched it: the config's
  // rope_scaling.original_max_position_embeddings (Llama 3.1: 8,192 of 131,072); 0 = unknown.
  std::int64_t pretrain_seq_len = 0;
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
  // YaRN's attention (concentration) factor, multiplied into RoPE's cos and sin: the config's
  // rope_scaling.attention_factor, else 0.1·ln(factor) + 1, or the ratio of that at mscale and
  // at mscale_all_dim where both are given (transformers _compute_yarn_parameters; Megatron-Core
  // _yarn_get_concentration_factor). gpt-oss (factor 32): 1.347; DeepSeek-V3, Kimi-K2 (mscale =
  // mscale_all_dim = 1): 1. 1 = none (plain RoPE, other scalings).
  double rope_attention_factor = 1;
  // gpt-oss's clamped GLU (config swiglu_limit): the gate half clamped to at most the limit and
  // the linear half to ±limit before the activation; 0 = no clamp.
  double glu_clamp = 0;

  bool mla = false;
  MlaShape mla_shape;
  MoeShape moe;

  // Sliding-window attention: window size and which layers use it (gpt-oss alternates).
  // Llama 4's chunked attention (attention_chunk_size on its RoPE layers) is carried here too,
  // with attention_chunked set: a chunk holds at most `sliding_window` tokens of KV, as a window
  // does, and a query sees the keys of its own chunk (on average half a chunk, against a full
  // window), which params.cpp and ops.cpp count.
  std::int64_t sliding_window = 0;
  bool attention_chunked = false;
  std::vector<bool> layer_is_sliding;  // empty = no sliding layers
  // Explicit MoE/dense pattern when dense_layers/layer_freq cannot say it (Qwen3-MoE
  // mlp_only_layers; DeepSeek moe_layer_freq > 1); empty = use dense_layers/layer_freq.
  std::vector<bool> layer_is_moe;

  // Hybrid state-space models: the mixer of each layer (empty = attention everywhere) and
  // whether the layer has its MLP/MoE block (empty = every layer; Nemotron-H's layers are a
  // single mixer or a single MLP).
  std::vector<MixerKind> layer_mixer;
  std::vector<bool> layer_has_ffn;
  MambaShape mamba;

  // Extra prediction heads (DeepSeek-V3 multi-token prediction); not in the headline count.
  std::int64_t mtp_layers = 0;

  // The checkpoint's own quantisation, from the Hugging Face config's quantization_config:
  // quant_method ("" = none stated; "mxfp4" = gpt-oss's experts in MXFP4), and whether its
  // modules_to_not_convert keeps the attention projections in 16 bits. Engines run such a
  // checkpoint as published (docs/model/moe-serving.md, "Expert GEMM precision").
  std::string checkpoint_quant;
  bool checkpoint_attention_16bit = false;

  double published_params = 0;         // total parameters as published, for checks
  double published_active_params = 0;  // MoE: active per token
  // How the publisher counted active parameters: OpenAI (gpt-oss) and DeepSeek leave out the
  // input-embedding table (a lookup); Mistral and Qwen count it.
  bool published_active_excludes_input_embedding = false;
  std::string notes;
  Provenance provenance;

  bool is_moe() const { return moe.experts > 0; }
  bool is_moe_layer(std::int64_t layer_idx) const {
    if (!is_moe() || !has_ffn(layer_idx)) return false;
    if (!layer_is_moe.empty()) {
      return layer_idx >= 0 && layer_idx < static_cast<std::int64_t>(layer_is_moe.size()) &&
             layer_is_moe[static_cast<std::size_t>(layer_idx)];
    }
    return layer_idx >= moe.dense_layers && (layer_idx - moe.dense_layers) % moe.layer_freq == 0;
  }
  MixerKind mixer(std::int64_t layer_idx) const {
    if (layer_mixer.empty() || layer_idx < 0 || layer_idx >= static_cast<std::int64_t>(layer_mixer.size()))
      return MixerKind::attention;
    return layer_mixer[static_cast<std::size_t>(layer_idx)];
  }
  bool is_attention_layer(std::int64_t layer_idx) const { return mixer(layer_idx) == MixerKind::attention; }
  bool is_mamba_layer(std::int64_t layer_idx) const { return mixer(layer_idx) == MixerKind::mamba; }
  bool has_ffn(std::int64_t layer_idx) const {
    if (layer_has_ffn.empty() || layer_idx < 0 || layer_idx >= static_cast<std::int64_t>(layer_has_ffn.size()))
      return true;
    return layer_has_ffn[static_cast<std::size_t>(layer_idx)];
  }
  bool is_hybrid() const { return !layer_mixer.empty() || !layer_has_ffn.empty(); }
  bool is_sliding_layer(std::int64_t layer_idx) const {
    return sliding_window > 0 && layer_idx >= 0 && layer_idx < static_cast<std::int64_t>(layer_is_sliding.size()) &&
           layer_is_sliding[static_cast<std::size_t>(layer_idx)];
  }
};

}  // namespace gpuplan
