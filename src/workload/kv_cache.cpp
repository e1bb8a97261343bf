#include "workload/kv_cache.h"

#include <algorithm>
#include <cmath>

#include "workload/mamba.h"

namespace gpuplan {

// Per token and layer: keys and values of every KV head, 2·kv_heads·head_dim elements
// (Shazeer 2019 MQA; Ainslie et al. 2023 GQA); MLA caches the compressed latent c_KV plus the
// decoupled RoPE key shared by all heads, kv_lora_rank + qk_rope_head_dim (DeepSeek-V2,
// arXiv:2405.04434: the latent is §2.1.2, the RoPE key §2.1.3, and their sum is the cache per
// token in §2.1.4, Table 1 — the section this formula comes from).
double kv_elems_per_token_per_layer(const ModelSpec& m) {
  return m.mla ? static_cast<double>(m.mla_shape.kv_lora_rank + m.mla_shape.qk_rope_head_dim)
               : 2.0 * static_cast<double>(m.kv_heads * m.head_dim);
}

KvShape make_kv_shape(const ModelSpec& m) {
  KvShape kv;
  kv.mla = m.mla;
  kv.kv_heads = m.kv_heads;
  kv.elems_per_token_per_layer = kv_elems_per_token_per_layer(m);
  kv.window = m.sliding_window;
  kv.chunked = m.attention_chunked;
  for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx) {
    if (m.is_mamba_layer(layer_idx)) ++kv.mamba_layers;
    if (!m.is_attention_layer(layer_idx)) continue;
    if (m.is_sliding_layer(layer_idx)) ++kv.sliding_layers;
    else ++kv.full_layers;
  }
  if (kv.mamba_layers > 0) kv.state_elems_per_layer = mamba_state_elems_per_layer(m.mamba);
  return kv;
}

double recurrent_state_bytes_per_seq_per_gpu(const KvShape& kv, int tp, int pp) {
  if (kv.mamba_layers == 0) return 0;
  return static_cast<double>(kv.mamba_layers) * kv.state_elems_per_layer * kMambaStateBytes /
         static_cast<double>(std::max(1, tp)) / static_cast<double>(std::max(1, pp));
}

double kv_tp_share(const KvShape& kv, int tp) {
  if (kv.mla || tp <= 1 || kv.kv_heads <= 0) return 1.0;
  const double heads_per_rank = std::ceil(static_cast<double>(kv.kv_heads) / tp);
  return heads_per_rank / static_cast<double>(kv.kv_heads);
}

double kv_tokens_sliding(const KvShape& kv, double context) {
  return kv.window > 0 ? std::min(context, static_cast<double>(kv.window)) : context;
}

double paged_tokens(double tokens, double block_tokens) {
  if (block_tokens <= 1) return tokens;
  return std::ceil(tokens / block_tokens) * block_tokens;
}

double kv_bytes_per_seq_per_gpu(const KvShape& kv, double context, Precision p, int tp, int pp,
                                double block_tokens) {
  const double full = paged_tokens(kv_tokens_full(context), block_tokens);
  const double sliding = paged_tokens(kv_tokens_sliding(kv, context), block_tokens);
  const double tokens_x_layers = static_cast<double>(kv.full_layers) * full +
                                 static_cast<double>(kv.sliding_layers) * sliding;
  return kv.elems_per_token_per_layer * precision_bytes(p) * kv_tp_share(kv, tp) * tokens_x_layers /
         static_cast<double>(pp);
}

}  // namespace gpuplan
