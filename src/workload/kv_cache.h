// KV cache sizes per GPU: bytes per token and per sequence for MHA, GQA, MLA and
// sliding-window layers, after tensor and pipeline parallelism cut them, and paged allocation.
// The one definition of KV-cache size: workload/params.h's kv_cache_bytes* (the model report)
// and the serving model (infer/) both use it. Formulas and sources: docs/model/inference.md §2.
#pragma once

#include <cstdint>

#include "core/precision.h"
#include "workload/model.h"

namespace gpuplan {

// A model's KV-cache shape, precomputed once (no per-call loops over layers).
struct KvShape {
  double elems_per_token_per_layer = 0;  // 2·kv_heads·head_dim (MHA/GQA) or kv_lora + rope dims (MLA)
  std::int64_t full_layers = 0;          // layers keeping every token
  std::int64_t sliding_layers = 0;       // layers keeping the last `window` tokens
  std::int64_t window = 0;
  bool chunked = false;                  // the window is Llama 4's attention chunk (ops.h)
  std::int64_t kv_heads = 0;
  bool mla = false;
  // Hybrid state-space models: Mamba layers keep a fixed recurrent state per sequence instead
  // of a KV cache (workload/mamba.h), in the model's 16-bit dtype, split tp ways by head.
  std::int64_t mamba_layers = 0;
  double state_elems_per_layer = 0;
};

// KV elements one token holds in one layer: 2·kv_heads·head_dim (MHA/GQA) or
// kv_lora_rank + qk_rope_head_dim (MLA).
double kv_elems_per_token_per_layer(const ModelSpec& model);

KvShape make_kv_shape(const ModelSpec& model);

// Share of a layer's KV one TP rank holds: GQA/MHA split the KV heads tp ways, but a rank
// never holds less than one head (kv_heads < tp replicates them: Llama-3 70B's 8 KV heads on
// TP 16 are held twice); MLA's latent is replicated on every rank (DeepSeek-V3 in vLLM/SGLang).
double kv_tp_share(const KvShape& kv, int tp);

// Tokens a sequence of `context` tokens occupies in a layer kind.
inline double kv_tokens_full(double context) { return context; }
double kv_tokens_sliding(const KvShape& kv, double context);

// Bytes one sequence of `context` tokens holds on one GPU (TP rank of one pipeline stage; the
// layers are split pp ways), rounded up to whole blocks of `block_tokens` per layer.
double kv_bytes_per_seq_per_gpu(const KvShape& kv, double context, Precision p, int tp, int pp,
                                double block_tokens = 1);

// Recurrent state one sequence holds on one GPU (Mamba layers split pp ways, heads tp ways);
// 0 for attention-only models. Not paged: a fixed slot per sequence (vLLM's Mamba cache).
double recurrent_state_bytes_per_seq_per_gpu(const KvShape& kv, int tp, int pp);

// Round a token count up to whole blocks (paged KV: a sequence owns whole blocks).
double paged_tokens(double tokens, double block_tokens);

}  // namespace gpuplan
