// Hugging Face config.json → ModelSpec. Each model_type's keys follow its transformers
// configuration class (configuration_<type>.py) and, for MPT, MosaicML's configuration_mpt.py.
#include "workload/hf_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json_fields.h"
#include "core/strings.h"
#include "workload/hf_reader.h"

namespace gpuplan {
namespace {

using hf::HfReader;
using hf::kMaxLayers;

// RoPE scaling that stretches the trained context (YaRN, linear, dynamic, llama3): factor ×
// original_max_position_embeddings, where that exceeds max_position_embeddings (Qwen2.5's
// documented YaRN block: 4 × 32,768 = 131,072 on a config whose max_position_embeddings is
// 32,768; Llama 3.1 and DeepSeek-V3 already write the stretched length). LongRoPE (Phi-3)
// has no factor and keeps max_position_embeddings.
//
// YaRN (rope_type or, in older configs, type "yarn") also scales cos and sin by its attention
// factor: attention_factor where given, else get_mscale(factor, mscale) / get_mscale(factor,
// mscale_all_dim) where both are, else get_mscale(factor), with get_mscale(s, m) = 0.1·m·ln(s) + 1
// for s > 1 (transformers modeling_rope_utils.py _compute_yarn_parameters; Megatron-Core
// yarn_rotary_pos_embedding.py _yarn_get_concentration_factor at core_v0.16.0).
double yarn_mscale(double scale, double mscale) { return scale <= 1 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0; }

void read_rope_scaling(HfReader& r, ModelSpec& m) {
  HfReader rope = r.sub("rope_scaling");
  const auto factor = rope.opt_real("factor");
  const auto original = rope.opt_size("original_max_position_embeddings");
  const std::string kind = rope.opt_str("rope_type").value_or(rope.opt_str("type").value_or(""));
  if (factor && *factor > 1e4) rope.fail("factor", fmt::format("{} is implausibly large", *factor));
  if (kind == "yarn" && factor && *factor > 0) {
    const auto given = rope.opt_real("attention_factor");
    const auto mscale = rope.opt_real("mscale");
    const auto mscale_all_dim = rope.opt_real("mscale_all_dim");
    if (given && !(*given > 0)) rope.fail("attention_factor", fmt::format("must be positive, got {}", *given));
    m.rope_attention_factor = given                       ? *given
                              : mscale && mscale_all_dim && *mscale != 0 && *mscale_all_dim != 0
                                  ? yarn_mscale(*factor, *mscale) / yarn_mscale(*factor, *mscale_all_dim)
                                  : yarn_mscale(*factor, 1.0);
  }
  if (!factor || !original || *factor <= 1) return;
  const auto stretched = static_cast<std::int64_t>(std::llround(*factor * static_cast<double>(*original)));
  m.max_seq_len = std::max(m.max_seq_len, stretched);
  m.pretrain_seq_len = *original;
}

// The keys most decoder-only configs share (LlamaConfig and its descendants).
void read_decoder(HfReader& r, ModelSpec& m) {
  m.hidden = r.size("hidden_size");
  m.layers = r.size("num_hidden_layers", kMaxLayers);
  m.heads = r.size("num_attention_heads");
  m.kv_heads = r.opt_size("num_key_value_heads").value_or(m.heads);
  m.head_dim = r.opt_size("head_dim").value_or(0);  // 0 = hidden / heads, resolved in finish()
  m.vocab = r.size("vocab_size");
  m.max_seq_len = r.opt_size("max_position_embeddings").value_or(0);
  m.tied_embeddings = r.flag("tie_word_embeddings", false);
  read_rope_scaling(r, m);
}

// transformers' `layer_types` list: one "sliding_attention" / "full_attention" per layer.
bool read_layer_types(HfReader& r, ModelSpec& m) {
  const auto types = r.str_list("layer_types");
  if (types.empty()) return false;
  if (static_cast<std::int64_t>(types.size()) != m.layers) {
    r.fail("layer_types", fmt::format("has {} entries but num_hidden_layers is {}", types.size(), m.layers));
  }
  m.layer_is_sliding.clear();
  for (const auto& t : types) {
    if (t != "sliding_attention" && t != "full_attention") {
      r.fail("layer_types", fmt::format("unknown layer type '{}'; use sliding_attention or full_attention", t));
    }
    m.layer_is_sliding.push_back(t == "sliding_attention");
  }
  return true;
}

void require_window_if_sliding(HfReader& r, ModelSpec& m) {
  const bool any = std::find(m.layer_is_sliding.begin(), m.layer_is_sliding.end(), true) != m.layer_is_sliding.end();
  if (!any) {
    m.layer_is_sliding.clear();
    m.sliding_window = 0;
    return;
  }
  if (m.sliding_window <= 0) r.missing("sliding_window", "required when some layers use sliding-window attention");
}

// Mistral and Mixtral: a non-null sliding_window applies to every layer.
void read_mistral_window(HfReader& r, ModelSpec& m) {
  m.sliding_window = r.opt_size("sliding_window").value_or(0);
  if (!read_layer_types(r, m) && m.sliding_window > 0)
    m.layer_is_sliding.assign(static_cast<std::size_t>(m.layers), true);
  require_window_if_sliding(r, m);
}

// Qwen2/Qwen3: with use_sliding_window, layers from max_window_layers on use the window
// (Qwen2Config: "sliding_attention" if sliding_window and i >= max_window_layers).
void read_qwen_window(HfReader& r, ModelSpec& m) {
  const bool use = r.flag("use_sliding_window", false);
  const auto window = r.opt_size("sliding_window");
  const auto first = r.opt_int("max_window_layers", 0, kMaxLayers);
  if (read_layer_types(r, m)) {
    m.sliding_window = window.value_or(0);
  } else if (use) {
    if (!window) r.missing("sliding_window", "required when use_sliding_window is true");
    if (!first) r.missing("max_window_layers", "required when use_sliding_window is true");
    m.sliding_window = *window;
    for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx)
      m.layer_is_sliding.push_back(layer_idx >= *first);
  }
  require_window_if_sliding(r, m);
}

void read_llama(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.ffn_hidden = r.size("intermediate_size");
  m.qkv_bias = m.attn_out_bias = r.flag("attention_bias", false);
  m.mlp_bias = r.flag("mlp_bias", false);
  if (read_layer_types(r, m)) {
    m.sliding_window = r.opt_size("sliding_window").value_or(0);
    require_window_if_sliding(r, m);
  }
}

// Phi-3 and Phi-4 (Phi3Config): Llama's shapes with q/k/v and gate/up fused into one matrix
// each (qkv_proj, gate_up_proj: the same parameters); a non-null sliding_window applies to
// every layer (Phi-3-mini: 2047); partial_rotary_factor (Phi-4-mini: 0.75) rotates part of
// each head; Phi-4-mini ties the head to the embedding.
void read_phi3(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.ffn_hidden = r.size("intermediate_size");
  read_mistral_window(r, m);
  if (const auto f = r.opt_real("partial_rotary_factor")) {
    if (!(*f > 0 && *f <= 1)) r.fail("partial_rotary_factor", "must be in (0, 1]");
    m.rotary_fraction = *f;
  }
}

// Gemma 2 (Gemma2Config): head_dim apart from hidden / heads (9B: 16 heads x 256 = 4,096, hidden
// 3,584); sliding-window attention on every other layer from the first (transformers: layer i
// slides when (i + 1) % 2 != 0); the head tied to the embedding (tie_word_embeddings defaults
// to true); GeGLU, whose gate, up and down matrices are SwiGLU's three. Logit soft-capping
// (attn_logit_softcapping, final_logit_softcapping: cap x tanh(x / cap)) adds no parameters and
// one tanh per logit, which the elementwise costs leave out; the four RMSNorms per layer are
// counted as two (under 0.01% of the parameters).
void read_gemma2(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.tied_embeddings = r.flag("tie_word_embeddings", true);
  m.ffn_hidden = r.size("intermediate_size");
  m.qkv_bias = m.attn_out_bias = r.flag("attention_bias", false);
  r.opt_real("attn_logit_softcapping");
  r.opt_real("final_logit_softcapping");
  r.opt_real("query_pre_attn_scalar");
  m.sliding_window = r.opt_size("sliding_window").value_or(0);
  if (!read_layer_types(r, m) && m.sliding_window > 0) {
    for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx)
      m.layer_is_sliding.push_back((layer_idx + 1) % 2 != 0);
  }
  require_window_if_sliding(r, m);
}

// Gemma 3 (Gemma3TextConfig): Gemma 2's shapes with 5 sliding-window layers to 1 global
// (sliding_window_pattern 6: layer i is global when (i + 1) % 6 == 0; or the layer_types list),
// q/k RMSNorm, a tied head; logit soft-capping is off by default (null) and read when set.
void read_gemma3(HfReader& r, ModelSpec& m) {
  m.hidden = r.size("hidden_size");
  m.layers = r.size("num_hidden_layers", kMaxLayers);
  m.heads = r.size("num_attention_heads");
  m.kv_heads = r.opt_size("num_key_value_heads").value_or(m.heads);
  m.head_dim = r.opt_size("head_dim").value_or(0);
  // Gemma3TextConfig's defaults: the multimodal configs' text_config often leaves these out.
  m.vocab = r.opt_size("vocab_size").value_or(262208);
  m.max_seq_len = r.opt_size("max_position_embeddings").value_or(131072);
  m.tied_embeddings = r.flag("tie_word_embeddings", true);
  m.ffn_hidden = r.size("intermediate_size");
  m.qkv_bias = m.attn_out_bias = r.flag("attention_bias", false);
  m.qk_norm = true;  // Gemma3Attention: q_norm and k_norm over each head
  r.opt_real("attn_logit_softcapping");
  r.opt_real("final_logit_softcapping");
  r.opt_real("query_pre_attn_scalar");
  m.sliding_window = r.opt_size("sliding_window").value_or(0);
  const std::int64_t pattern = r.opt_size("sliding_window_pattern", kMaxLayers).value_or(6);
  if (!read_layer_types(r, m) && m.sliding_window > 0) {
    for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx)
      m.layer_is_sliding.push_back((layer_idx + 1) % pattern != 0);
  }
  require_window_if_sliding(r, m);
}

void read_mistral(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.ffn_hidden = r.size("intermediate_size");
  read_mistral_window(r, m);
}

void read_mixtral(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.ffn_hidden = r.size("intermediate_size");  // each expert's FFN; Mixtral has no dense MLP
  m.moe.experts = r.size("num_local_experts");
  m.moe.top_k = r.size("num_experts_per_tok");
  m.moe.expert_ffn_hidden = m.ffn_hidden;
  read_mistral_window(r, m);
}

void read_qwen2(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.ffn_hidden = r.size("intermediate_size");
  m.qkv_bias = true;  // Qwen2Attention: q/k/v projections always carry a bias, o_proj none
  read_qwen_window(r, m);
}

void read_qwen3(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.ffn_hidden = r.size("intermediate_size");
  m.qkv_bias = m.attn_out_bias = r.flag("attention_bias", false);
  m.qk_norm = true;  // Qwen3Attention: RMSNorm over each head of q and k
  read_qwen_window(r, m);
}

// Qwen2-MoE and Qwen3-MoE: routed experts, and which layers are sparse.
void read_qwen_moe_layers(HfReader& r, ModelSpec& m) {
  m.moe.experts = r.size("num_experts");
  m.moe.top_k = r.size("num_experts_per_tok");
  m.moe.expert_ffn_hidden = r.size("moe_intermediate_size");
  // Qwen{2,3}MoeDecoderLayer: sparse when not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0.
  const std::int64_t step = r.opt_size("decoder_sparse_step", kMaxLayers).value_or(1);
  const auto dense_only = r.int_list("mlp_only_layers", m.layers);
  std::vector<bool> is_moe;
  for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx) {
    const bool listed = std::find(dense_only.begin(), dense_only.end(), layer_idx) != dense_only.end();
    is_moe.push_back(!listed && (layer_idx + 1) % step == 0);
  }
  const bool any_dense = std::find(is_moe.begin(), is_moe.end(), false) != is_moe.end();
  // Unused when every layer is MoE (some converted configs then write 0).
  m.ffn_hidden = any_dense ? r.size("intermediate_size") : r.count_or("intermediate_size", 0);
  if (any_dense) {
    m.moe.dense_layers = std::find(is_moe.begin(), is_moe.end(), true) - is_moe.begin();
    m.layer_is_moe = std::move(is_moe);
  }
}

void read_qwen3_moe(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.qkv_bias = m.attn_out_bias = r.flag("attention_bias", false);
  m.qk_norm = true;
  read_qwen_moe_layers(r, m);
  read_qwen_window(r, m);
}

// Qwen1.5-MoE and Qwen2-MoE (Qwen2MoeConfig; Qwen2MoeSparseMoeBlock): Qwen2's attention (q/k/v
// bias), routed experts of moe_intermediate_size, and one shared expert of its own width
// (shared_expert_intermediate_size: 5,632 = 4 × 1,408 in Qwen1.5-MoE-A2.7B) scaled by a
// sigmoid gate Linear(hidden, 1), both on every token.
void read_qwen2_moe(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.qkv_bias = r.flag("qkv_bias", true);
  read_qwen_moe_layers(r, m);
  m.moe.shared_experts = 1;
  m.moe.shared_ffn_hidden = r.size("shared_expert_intermediate_size");
  m.moe.shared_expert_gate = true;
  read_qwen_window(r, m);
}

// Llama 4 (Llama4TextConfig; modeling_llama4.py): MoE layers at moe_layers (default every
// interleave_moe_layer_step-th: Scout 1 = all 48, Maverick 2 = the odd 24), each with top-k of
// num_local_experts routed experts and one shared expert, all of intermediate_size; dense
// layers an MLP of intermediate_size_mlp. RoPE layers (no_rope_layers[i] = 1; by default all
// but every no_rope_layer_interval-th) use chunked attention of attention_chunk_size tokens;
// the NoPE layers attend globally. use_qk_norm is a weightless L2 norm (no parameters).
void read_llama4_text(HfReader& r, ModelSpec& m) {
  m.family = "llama4";
  read_decoder(r, m);
  m.qkv_bias = m.attn_out_bias = r.flag("attention_bias", false);
  r.flag("use_qk_norm", true);
  m.moe.experts = r.size("num_local_experts");
  m.moe.top_k = r.size("num_experts_per_tok");
  m.moe.expert_ffn_hidden = r.size("intermediate_size");
  m.moe.shared_experts = 1;
  const std::int64_t step = r.opt_size("interleave_moe_layer_step", kMaxLayers).value_or(1);
  auto moe_layers = r.int_list("moe_layers", m.layers);
  if (moe_layers.empty()) {
    for (std::int64_t layer_idx = step - 1; layer_idx < m.layers; layer_idx += step) moe_layers.push_back(layer_idx);
  }
  std::vector<bool> is_moe(static_cast<std::size_t>(m.layers), false);
  for (const auto layer_idx : moe_layers) is_moe[static_cast<std::size_t>(layer_idx)] = true;
  const bool any_dense = std::find(is_moe.begin(), is_moe.end(), false) != is_moe.end();
  m.ffn_hidden = any_dense ? r.size("intermediate_size_mlp") : r.count_or("intermediate_size_mlp", 0);
  if (any_dense) {
    m.moe.dense_layers = std::find(is_moe.begin(), is_moe.end(), true) - is_moe.begin();
    m.layer_is_moe = std::move(is_moe);
  }

  const auto chunk = r.opt_size("attention_chunk_size");
  const std::int64_t interval = r.opt_size("no_rope_layer_interval", kMaxLayers).value_or(4);
  auto rope_layers = r.int_list("no_rope_layers", 2);  // 1 = the layer uses RoPE
  if (rope_layers.empty()) {
    for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx)
      rope_layers.push_back((layer_idx + 1) % interval != 0 ? 1 : 0);
  }
  if (static_cast<std::int64_t>(rope_layers.size()) != m.layers) {
    r.fail("no_rope_layers", fmt::format("has {} entries but num_hidden_layers is {}", rope_layers.size(), m.layers));
  }
  if (chunk) {
    m.sliding_window = *chunk;
    m.attention_chunked = true;
    for (const auto uses_rope : rope_layers) m.layer_is_sliding.push_back(uses_rope == 1);
  }
  require_window_if_sliding(r, m);
  if (m.sliding_window == 0) m.attention_chunked = false;
}

// Falcon (FalconConfig; modeling_falcon.py) and its remote-code names RefinedWebModel (7B:
// the original decoder) and RefinedWeb (40B/180B: new_decoder_architecture). Keys n_head,
// n_layer and n_head_kv are the remote-code spellings of num_attention_heads,
// num_hidden_layers and num_kv_heads. Attention: one fused query_key_value matrix of width
// (heads + 2·kv_heads)·head_dim, where kv_heads is num_kv_heads under the new architecture, 1
// with multi_query, heads otherwise. MLP: dense_h_to_4h and dense_4h_to_h (ffn_hidden_size,
// default 4·hidden) with GeLU. LayerNorm with bias; `bias` on every linear; ALiBi or RoPE; a
// head tied to the embedding. Parallel attention (attention and MLP read the same normed
// input) has one LayerNorm per layer in the 7B and two in the new architecture; the count
// takes two per layer (7B: 0.29M too many of 6.92B).
void read_falcon(HfReader& r, ModelSpec& m, const std::string& type) {
  m.hidden = r.size("hidden_size");
  m.vocab = r.size("vocab_size");
  const auto pick = [&r](const char* name, const char* legacy) {
    const auto a = r.opt_size(name, kMaxLayers * 1000);
    const auto b = r.opt_size(legacy, kMaxLayers * 1000);
    if (a && b && *a != *b) r.fail(name, fmt::format("{} disagrees with {} {}", *a, legacy, *b));
    return a ? a : b;
  };
  const auto layers = pick("num_hidden_layers", "n_layer");
  if (!layers) r.missing("num_hidden_layers", "or n_layer; required for model_type " + type);
  if (*layers > kMaxLayers) r.fail("num_hidden_layers", fmt::format("{} is implausibly large", *layers));
  m.layers = *layers;
  const auto heads = pick("num_attention_heads", "n_head");
  if (!heads) r.missing("num_attention_heads", "or n_head; required for model_type " + type);
  if (*heads > hf::kMaxDim) r.fail("num_attention_heads", fmt::format("{} is implausibly large", *heads));
  m.heads = *heads;
  const bool new_arch = r.flag("new_decoder_architecture", type == "RefinedWeb");
  const bool multi_query = r.flag("multi_query", true);
  if (new_arch) {
    const auto kv = pick("num_kv_heads", "n_head_kv");
    m.kv_heads = kv.value_or(m.heads);
  } else {
    pick("num_kv_heads", "n_head_kv");
    m.kv_heads = multi_query ? 1 : m.heads;
  }
  m.max_seq_len = r.opt_size("max_position_embeddings").value_or(2048);
  m.ffn_hidden = r.opt_size("ffn_hidden_size").value_or(4 * m.hidden);
  m.tied_embeddings = r.flag("tie_word_embeddings", true);
  m.mlp = MlpKind::gelu;
  m.norm = NormKind::layernorm;
  m.norm_bias = true;
  m.position = r.flag("alibi", false) ? PositionKind::alibi : PositionKind::rope;
  const bool bias = r.flag("bias", false);
  m.qkv_bias = m.attn_out_bias = m.mlp_bias = bias;
  // Attention and MLP side by side (FalconDecoderLayer: mlp_output += attention_output): one
  // TP reduction per layer (ModelSpec::parallel_block).
  m.parallel_block = r.flag("parallel_attn", true);
  r.opt_size("num_ln_in_parallel_attn", 2);
}

// Jamba (JambaConfig; modeling_jamba.py; Lieber et al. 2024, arXiv:2403.19887): Mamba-1
// layers with one attention layer in every attn_layer_period (at attn_layer_offset: v0.1 has
// 4 of 32), and a MoE MLP in every expert_layer_period-th layer (at expert_layer_offset), a
// dense SwiGLU MLP elsewhere. The Mamba mixer: d_inner = mamba_expand × hidden, state
// mamba_d_state, conv width mamba_d_conv, Δ rank mamba_dt_rank ("auto" = ⌈hidden / 16⌉), and
// RMSNorms on Δ, B and C. Attention has no positional encoding (reported as rope: neither holds
// parameters); a non-null sliding_window applies to every attention layer.
void read_jamba(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.ffn_hidden = r.size("intermediate_size");
  const std::int64_t experts = r.opt_size("num_experts").value_or(16);
  const std::int64_t attn_period = r.opt_size("attn_layer_period", kMaxLayers).value_or(8);
  const std::int64_t attn_offset = r.opt_int("attn_layer_offset", 0, kMaxLayers).value_or(4);
  const std::int64_t expert_period = r.opt_size("expert_layer_period", kMaxLayers).value_or(2);
  const std::int64_t expert_offset = r.opt_int("expert_layer_offset", 0, kMaxLayers).value_or(1);
  if (attn_offset >= attn_period) {
    r.fail("attn_layer_offset", fmt::format("{} must be less than attn_layer_period {}", attn_offset, attn_period));
  }
  if (expert_offset >= expert_period) {
    r.fail("expert_layer_offset",
           fmt::format("{} must be less than expert_layer_period {}", expert_offset, expert_period));
  }
  MambaShape& ms = m.mamba;
  ms.version = 1;
  ms.d_state = r.opt_size("mamba_d_state").value_or(16);
  ms.d_conv = r.opt_size("mamba_d_conv").value_or(4);
  ms.d_inner = r.opt_size("mamba_expand").value_or(2) * m.hidden;
  if (const hf::json* rank = r.get("mamba_dt_rank"); rank && rank->is_string()) {
    if (rank->get<std::string>() != "auto") r.fail("mamba_dt_rank", "expected an integer or \"auto\"");
    ms.dt_rank = (m.hidden + 15) / 16;
  } else {
    ms.dt_rank = r.opt_size("mamba_dt_rank").value_or((m.hidden + 15) / 16);
  }
  ms.conv_bias = r.flag("mamba_conv_bias", true);
  ms.proj_bias = r.flag("mamba_proj_bias", false);
  ms.inner_norms = true;
  for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx) {
    m.layer_mixer.push_back(layer_idx % attn_period == attn_offset ? MixerKind::attention : MixerKind::mamba);
  }
  if (experts > 1) {
    m.moe.experts = experts;
    m.moe.top_k = r.opt_size("num_experts_per_tok").value_or(2);
    m.moe.expert_ffn_hidden = m.ffn_hidden;
    for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx)
      m.layer_is_moe.push_back(layer_idx % expert_period == expert_offset);
    m.moe.dense_layers = std::min(expert_offset, m.layers);
  }
  m.sliding_window = r.opt_size("sliding_window").value_or(0);
  if (m.sliding_window > 0) {
    for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx)
      m.layer_is_sliding.push_back(m.layer_mixer[static_cast<std::size_t>(layer_idx)] == MixerKind::attention);
  }
}

// Nemotron-H (NemotronHConfig; modeling_nemotron_h.py; NVIDIA, arXiv:2504.03624): each layer is
// one block named by hybrid_override_pattern: M a Mamba-2 mixer, * attention (GQA, no
// positional encoding), - a squared-ReLU MLP, E a MoE block (Nemotron-H MoE variants:
// n_routed_experts of moe_intermediate_size, a shared expert of
// moe_shared_expert_intermediate_size, a biased router). The Mamba-2 mixer: mamba_num_heads
// heads of mamba_head_dim (d_inner = heads × head_dim), n_groups B/C groups of ssm_state_size,
// a conv of conv_kernel, SSD chunks of chunk_size.
void read_nemotron_h(HfReader& r, ModelSpec& m) {
  m.hidden = r.size("hidden_size");
  m.layers = r.size("num_hidden_layers", kMaxLayers);
  m.heads = r.size("num_attention_heads");
  m.kv_heads = r.opt_size("num_key_value_heads").value_or(m.heads);
  const auto head_dim = r.opt_size("head_dim");
  const auto attention_head_dim = r.opt_size("attention_head_dim");
  m.head_dim = head_dim ? *head_dim : attention_head_dim.value_or(0);
  m.vocab = r.size("vocab_size");
  m.max_seq_len = r.opt_size("max_position_embeddings").value_or(0);
  m.tied_embeddings = r.flag("tie_word_embeddings", false);
  const std::string act = r.opt_str("mlp_hidden_act").value_or("relu2");
  m.mlp = act == "relu2" ? MlpKind::relu2 : MlpKind::gelu;
  m.qkv_bias = m.attn_out_bias = r.flag("attention_bias", false);
  m.mlp_bias = r.flag("mlp_bias", false);
  const auto pattern = r.opt_str("hybrid_override_pattern");
  if (!pattern) r.missing("hybrid_override_pattern", "required for model_type nemotron_h (e.g. \"M-M-M*-\")");
  if (static_cast<std::int64_t>(pattern->size()) != m.layers) {
    r.fail("hybrid_override_pattern",
           fmt::format("has {} characters but num_hidden_layers is {}", pattern->size(), m.layers));
  }
  bool any_dense = false;
  bool any_moe = false;
  for (const char ch : *pattern) {
    if (ch != 'M' && ch != '*' && ch != '-' && ch != 'E') {
      r.fail("hybrid_override_pattern", fmt::format("unknown layer '{}'; use M (Mamba-2), * (attention), - (MLP) "
                                                    "or E (MoE)", ch));
    }
    m.layer_mixer.push_back(ch == 'M' ? MixerKind::mamba : ch == '*' ? MixerKind::attention : MixerKind::none);
    m.layer_has_ffn.push_back(ch == '-' || ch == 'E');
    m.layer_is_moe.push_back(ch == 'E');
    any_dense = any_dense || ch == '-';
    any_moe = any_moe || ch == 'E';
  }
  m.ffn_hidden = any_dense ? r.size("intermediate_size") : r.count_or("intermediate_size", 0);
  if (any_moe) {
    m.moe.experts = r.size("n_routed_experts");
    m.moe.top_k = r.size("num_experts_per_tok");
    m.moe.expert_ffn_hidden = r.size("moe_intermediate_size");
    m.moe.shared_ffn_hidden = r.count_or("moe_shared_expert_intermediate_size", 0);
    m.moe.shared_experts = m.moe.shared_ffn_hidden > 0 ? 1 : 0;
    m.moe.router_bias = true;  // e_score_correction_bias
    m.moe.dense_layers = std::find(m.layer_is_moe.begin(), m.layer_is_moe.end(), true) - m.layer_is_moe.begin();
  } else {
    m.layer_is_moe.clear();
  }
  MambaShape& ms = m.mamba;
  ms.version = 2;
  ms.heads = r.size("mamba_num_heads");
  ms.head_dim = r.size("mamba_head_dim");
  ms.d_inner = ms.heads * ms.head_dim;
  ms.d_state = r.size("ssm_state_size");
  ms.groups = r.opt_size("n_groups").value_or(1);
  ms.d_conv = r.opt_size("conv_kernel").value_or(4);
  ms.chunk = r.opt_size("chunk_size").value_or(128);
  ms.conv_bias = r.flag("use_conv_bias", true);
  ms.proj_bias = r.flag("use_bias", false);
  r.flag("mamba_proj_bias", false);
  r.opt_real("expand");
  if (ms.heads % ms.groups != 0) {
    r.fail("n_groups", fmt::format("{} groups must divide the {} Mamba heads", ms.groups, ms.heads));
  }
}

// DeepSeek-V2/V3: multi-head latent attention and fine-grained MoE with shared experts.
void read_deepseek(HfReader& r, ModelSpec& m, bool v3) {
  read_decoder(r, m);
  m.mla = true;
  m.mla_shape.q_lora_rank = r.opt_size("q_lora_rank").value_or(0);  // null = direct projection (V2-Lite)
  m.mla_shape.kv_lora_rank = r.size("kv_lora_rank");
  m.mla_shape.qk_nope_head_dim = r.size("qk_nope_head_dim");
  m.mla_shape.qk_rope_head_dim = r.size("qk_rope_head_dim");
  m.mla_shape.v_head_dim = r.size("v_head_dim");
  m.head_dim = m.mla_shape.qk_nope_head_dim + m.mla_shape.qk_rope_head_dim;  // query/key head width
  m.kv_heads = m.heads;  // every head has its own (decompressed) K and V
  m.qkv_bias = m.attn_out_bias = r.flag("attention_bias", false);
  m.mtp_layers = r.count_or("num_nextn_predict_layers", 0, kMaxLayers);

  const auto experts = r.opt_size("n_routed_experts");
  std::int64_t dense_layers = m.layers;
  if (experts) {
    m.moe.experts = *experts;
    m.moe.top_k = r.size("num_experts_per_tok");
    m.moe.expert_ffn_hidden = r.size("moe_intermediate_size");
    m.moe.shared_experts = r.count_or("n_shared_experts", 0);
    m.moe.dense_layers = std::min(r.count_or("first_k_dense_replace", 0, kMaxLayers), m.layers);
    m.moe.layer_freq = r.opt_size("moe_layer_freq", kMaxLayers).value_or(1);
    // DeepseekV3DecoderLayer: MoE when layer_idx >= first_k_dense_replace and layer_idx % moe_layer_freq == 0.
    if (m.moe.layer_freq > 1) {
      for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx) {
        m.layer_is_moe.push_back(layer_idx >= m.moe.dense_layers && layer_idx % m.moe.layer_freq == 0);
      }
      dense_layers = std::count(m.layer_is_moe.begin(), m.layer_is_moe.end(), false);
    } else {
      dense_layers = m.moe.dense_layers;
    }
    // V3's router adds a per-expert bias for load balancing (topk_method noaux_tc).
    m.moe.router_bias = v3 && r.opt_str("topk_method").value_or("noaux_tc") == "noaux_tc";
    // Group-limited routing (DeepseekV3MoEGate: n_group groups, the top topk_group of them).
    if (v3) {
      m.moe.groups = r.opt_size("n_group").value_or(0);
      m.moe.group_limit = r.opt_size("topk_group").value_or(0);
      if (m.moe.groups > 0 && m.moe.experts % m.moe.groups != 0) {
        r.fail("n_group", fmt::format("{} groups must divide the {} routed experts", m.moe.groups, m.moe.experts));
      }
      if (m.moe.group_limit > m.moe.groups) {
        r.fail("topk_group", fmt::format("{} exceeds n_group {}: at most every group", m.moe.group_limit, m.moe.groups));
      }
    }
  }
  m.ffn_hidden = dense_layers > 0 ? r.size("intermediate_size") : r.count_or("intermediate_size", 0);
}

void read_gpt_oss(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.ffn_hidden = r.size("intermediate_size");
  m.moe.experts = r.size("num_local_experts");
  // The released configs carry both names for top-k; either will do, but they must agree.
  const auto a = r.opt_size("experts_per_token");
  const auto b = r.opt_size("num_experts_per_tok");
  if (!a && !b) r.missing("num_experts_per_tok", "or experts_per_token; required for model_type gpt_oss");
  if (a && b && *a != *b) r.fail("num_experts_per_tok", fmt::format("{} disagrees with experts_per_token {}", *b, *a));
  m.moe.top_k = a ? *a : *b;
  m.moe.expert_ffn_hidden = m.ffn_hidden;
  m.moe.router_bias = true;  // GptOssTopKRouter: linear with bias
  m.mlp_bias = true;         // experts carry gate_up and down biases
  m.qkv_bias = m.attn_out_bias = r.flag("attention_bias", true);
  m.attn_sinks = true;
  // GptOssExperts clamp the gate half to at most swiglu_limit and the linear half to ±limit.
  if (const auto limit = r.opt_real("swiglu_limit")) {
    if (!(*limit > 0)) r.fail("swiglu_limit", fmt::format("must be positive, got {}", *limit));
    m.glu_clamp = *limit;
  }
  m.sliding_window = r.opt_size("sliding_window").value_or(0);
  if (!read_layer_types(r, m) && m.sliding_window > 0) {
    // GptOssConfig default: even layers sliding, odd layers full.
    for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx)
      m.layer_is_sliding.push_back(layer_idx % 2 == 0);
  }
  require_window_if_sliding(r, m);
}

void read_gpt2(HfReader& r, ModelSpec& m) {
  m.hidden = r.size("n_embd");
  m.layers = r.size("n_layer", kMaxLayers);
  m.heads = r.size("n_head");
  m.kv_heads = m.heads;
  m.max_seq_len = r.size("n_positions");
  m.vocab = r.size("vocab_size");
  m.ffn_hidden = r.opt_size("n_inner").value_or(4 * m.hidden);  // null = 4 × n_embd
  m.tied_embeddings = r.flag("tie_word_embeddings", true);
  m.mlp = MlpKind::gelu;
  m.norm = NormKind::layernorm;
  m.norm_bias = true;
  m.position = PositionKind::learned;
  m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;
}

void read_mpt(HfReader& r, ModelSpec& m) {
  m.hidden = r.size("d_model");
  m.heads = r.size("n_heads");
  m.layers = r.size("n_layers", kMaxLayers);
  m.vocab = r.size("vocab_size");
  m.max_seq_len = r.opt_size("max_seq_len").value_or(2048);
  const double ratio = r.opt_real("expansion_ratio").value_or(4.0);
  if (ratio <= 0 || ratio > 1024) r.fail("expansion_ratio", fmt::format("must be in (0, 1024], got {}", ratio));
  m.ffn_hidden = std::max<std::int64_t>(1, std::llround(ratio * static_cast<double>(m.hidden)));
  const bool no_bias = r.flag("no_bias", false);
  m.qkv_bias = m.attn_out_bias = m.mlp_bias = m.norm_bias = !no_bias;
  m.tied_embeddings = r.flag("tie_word_embeddings", true);  // MPT reuses wte as the output head
  m.norm = NormKind::layernorm;
  m.mlp = MlpKind::gelu;
  const bool learned = r.flag("learned_pos_emb", true);

  HfReader attn = r.sub("attn_config");
  const bool alibi = attn.flag("alibi", false);
  const bool rope = attn.flag("rope", false);
  const std::string type = attn.opt_str("attn_type").value_or("multihead_attention");
  if (type == "multihead_attention") {
    m.kv_heads = m.heads;
  } else if (type == "multiquery_attention") {
    m.kv_heads = 1;
  } else if (type == "grouped_query_attention") {
    m.kv_heads = attn.size("kv_n_heads");
  } else {
    attn.fail("attn_type", fmt::format("unknown '{}'; use multihead_attention, multiquery_attention or "
                                       "grouped_query_attention",
                                       type));
  }
  // MPT-7B/30B: ALiBi and no position table (the model card: "does not use positional embeddings").
  // Neither ALiBi, RoPE nor a table (NoPE) holds no parameters either; it is reported as rope.
  m.position = alibi ? PositionKind::alibi : (rope || !learned) ? PositionKind::rope : PositionKind::learned;

  HfReader ffn = r.sub("ffn_config");
  const std::string ffn_type = ffn.opt_str("ffn_type").value_or("mptmlp");
  if (ffn_type == "mptglu") {
    m.mlp = MlpKind::swiglu;
  } else if (ffn_type != "mptmlp" && ffn_type != "te_ln_mlp") {
    ffn.fail("ffn_type", fmt::format("unknown '{}'; use mptmlp or mptglu", ffn_type));
  }
}

void read_nemotron(HfReader& r, ModelSpec& m) {
  read_decoder(r, m);
  m.ffn_hidden = r.size("intermediate_size");
  // NemotronMLP: up and down projections only, squared-ReLU between them.
  const std::string act = r.opt_str("hidden_act").value_or("relu2");
  m.mlp = act == "relu2" ? MlpKind::relu2 : MlpKind::gelu;
  m.norm = NormKind::layernorm;  // LayerNorm1P: weight and bias
  m.norm_bias = true;
  m.qkv_bias = m.attn_out_bias = r.flag("attention_bias", false);
  m.mlp_bias = r.flag("mlp_bias", false);
  m.rotary_fraction = r.opt_real("partial_rotary_factor").value_or(0.5);
  if (m.rotary_fraction <= 0 || m.rotary_fraction > 1) {
    r.fail("partial_rotary_factor", fmt::format("must be in (0, 1], got {}", m.rotary_fraction));
  }
}

// Shape checks common to every model_type.
// quantization_config (transformers' quantizer configs): the method, and the modules it leaves
// in 16 bits. gpt-oss: quant_method "mxfp4", modules_to_not_convert self_attn, router,
// embed_tokens, lm_head (huggingface.co/openai/gpt-oss-120b config.json).
void read_quantization_config(HfReader& r, ModelSpec& m) {
  HfReader q = r.sub("quantization_config");
  m.checkpoint_quant = to_lower(q.opt_str("quant_method").value_or(""));
  for (const std::string& module : q.str_list("modules_to_not_convert")) {
    if (module.find("self_attn") != std::string::npos) m.checkpoint_attention_16bit = true;
  }
}

void finish(HfReader& r, ModelSpec& m, const std::string& heads_key) {
  read_quantization_config(r, m);
  if (m.head_dim == 0) {
    if (m.hidden % m.heads != 0) {
      r.fail(heads_key, fmt::format("hidden size {} is not divisible by {} heads; give head_dim", m.hidden, m.heads));
    }
    m.head_dim = m.hidden / m.heads;
  }
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
    r.fail("num_key_value_heads",
           fmt::format("{} key/value heads must divide the {} attention heads", m.kv_heads, m.heads));
  }
  if (m.is_moe() && m.moe.top_k > m.moe.experts) {
    r.fail("num_experts_per_tok", fmt::format("top-k {} exceeds the {} experts", m.moe.top_k, m.moe.experts));
  }
}

// Encoder-only (BERT family) and encoder-decoder (T5, BART, ...) configs: by the model_type, or
// by transformers' is_encoder_decoder flag.
bool is_not_decoder_only(const nlohmann::json& config, const std::string& type) {
  static const std::vector<std::string> encoders{
      "bert", "roberta", "xlm-roberta", "distilbert", "albert", "electra", "deberta", "deberta-v2", "modernbert",
      "t5",   "mt5",     "umt5",        "bart",       "mbart",  "pegasus", "marian",  "whisper",    "encoder-decoder"};
  if (std::find(encoders.begin(), encoders.end(), type) != encoders.end()) return true;
  const auto it = config.find("is_encoder_decoder");
  return it != config.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

const std::vector<std::string>& supported_hf_model_types() {
  static const std::vector<std::string> types{"llama",       "mistral",     "mixtral", "qwen2",   "qwen3", "qwen3_moe",
                                              "deepseek_v2", "deepseek_v3", "gpt2",    "gpt_oss", "mpt",   "nemotron",
                                              "phi3",        "gemma2",      "gemma3_text", "gemma3",
                                              "qwen2_moe",   "llama4",      "llama4_text", "falcon",
                                              "RefinedWeb",  "RefinedWebModel", "jamba",     "nemotron_h",
                                              "kimi_k2"};
  return types;
}

ModelSpec model_from_hf_config(const nlohmann::json& config, const std::string& where, bool strict) {
  if (!config.is_object()) throw Error(fmt::format("{}: expected a JSON object (a Hugging Face config.json)", where));
  const auto type_it = config.find("model_type");
  if (type_it == config.end() || !type_it->is_string()) {
    throw Error(fmt::format("{}: missing field 'model_type' (a string, one of {})", where,
                            join(supported_hf_model_types(), ", ")));
  }
  const std::string type = type_it->get<std::string>();
  HfReader r(config, where, type);
  r.get("model_type");
  ModelSpec m;
  m.model_type = type;
  m.family = type;
  std::string heads_key = "num_attention_heads";
  if (type == "llama") {
    read_llama(r, m);
  } else if (type == "mistral") {
    read_mistral(r, m);
  } else if (type == "mixtral") {
    read_mixtral(r, m);
  } else if (type == "qwen2") {
    read_qwen2(r, m);
  } else if (type == "qwen3") {
    read_qwen3(r, m);
  } else if (type == "qwen3_moe") {
    read_qwen3_moe(r, m);
  } else if (type == "jamba") {
    read_jamba(r, m);
  } else if (type == "nemotron_h") {
    read_nemotron_h(r, m);
  } else if (type == "qwen2_moe") {
    read_qwen2_moe(r, m);
  } else if (type == "llama4_text") {
    read_llama4_text(r, m);
  } else if (type == "llama4") {
    // The multimodal config: the language model under text_config; the vision encoder and
    // projector (vision_config: about 0.8B parameters) are not counted or costed.
    HfReader text = r.sub("text_config");
    read_llama4_text(text, m);
    finish(text, m, heads_key);
    if (strict) text.reject_typos();
    return m;
  } else if (type == "falcon" || type == "RefinedWeb" || type == "RefinedWebModel") {
    m.family = "falcon";
    read_falcon(r, m, type);
  } else if (type == "deepseek_v2" || type == "deepseek_v3" || type == "kimi_k2") {
    // Kimi K2 (Moonshot AI 2025, arXiv:2507.20534) is the DeepSeek-V3 architecture
    // (architectures = DeepseekV3ForCausalLM) with 384 experts, 64 heads and one dense layer.
    read_deepseek(r, m, type != "deepseek_v2");
  } else if (type == "gpt_oss") {
    read_gpt_oss(r, m);
  } else if (type == "gpt2") {
    read_gpt2(r, m);
    heads_key = "n_head";
  } else if (type == "mpt") {
    read_mpt(r, m);
    heads_key = "n_heads";
  } else if (type == "nemotron") {
    read_nemotron(r, m);
  } else if (type == "phi3") {
    read_phi3(r, m);
  } else if (type == "gemma2") {
    read_gemma2(r, m);
  } else if (type == "gemma3_text") {
    read_gemma3(r, m);
  } else if (type == "gemma3") {
    // The multimodal config: the language model's shape is under text_config; the SigLIP vision
    // encoder (about 0.4B parameters) is not counted or costed.
    HfReader text = r.sub("text_config");
    read_gemma3(text, m);
    finish(text, m, heads_key);
    if (strict) text.reject_typos();
    return m;
  } else if (is_not_decoder_only(config, type)) {
    throw Error(fmt::format("{}: model_type '{}' is not supported: decoder-only transformers only (gpuplan "
                            "reads {}); encoder-only and encoder-decoder models are out of scope",
                            where, type, join(supported_hf_model_types(), ", ")));
  } else {
    throw Error(fmt::format("{}: unsupported model_type '{}'; gpuplan reads {}", where, type,
                            join(supported_hf_model_types(), ", ")));
  }
  finish(r, m, heads_key);
  if (strict) r.reject_typos();
  return m;
}

ModelSpec load_hf_config_file(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string text = read_input_file(path, "model config");
  check_json_depth(text, path);
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw Error(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  ModelSpec m = model_from_hf_config(config, path);
  const fs::path p(path);
  const std::string folder = p.parent_path().filename().string();
  m.id = p.filename() == "config.json" && !folder.empty() ? folder : p.stem().string();
  m.name = m.id;
  m.provenance.source = path;
  m.provenance.file = path;
  return m;
}

}  // namespace gpuplan
