// Model shapes built in code for the cost-model tests, so they do not depend on the zoo.
#pragma once

#include "workload/model.h"

namespace gpuplan::testing {

// GPT-3 175B (Brown et al. 2020): 96 layers, h = 12,288, 96 heads, GeLU MLP 4h, V = 51,200
// (Megatron's padded vocabulary).
inline ModelSpec gpt3_175b() {
  ModelSpec m;
  m.id = "gpt3-175b";
  m.layers = 96;
  m.hidden = 12288;
  m.heads = 96;
  m.kv_heads = 96;
  m.head_dim = 128;
  m.ffn_hidden = 4 * 12288;
  m.vocab = 51200;
  m.max_seq_len = 2048;
  m.mlp = MlpKind::gelu;
  m.norm = NormKind::layernorm;
  m.position = PositionKind::learned;
  return m;
}

// Llama 3 8B: GQA 32/8 heads, SwiGLU 14,336, V = 128,256.
inline ModelSpec llama3_8b() {
  ModelSpec m;
  m.id = "llama3-8b";
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_hidden = 14336;
  m.vocab = 128256;
  m.max_seq_len = 8192;
  return m;
}

// Mixtral 8x7B: 8 experts, top-2, expert FFN 14,336, GQA 32/8.
inline ModelSpec mixtral_8x7b() {
  ModelSpec m = llama3_8b();
  m.id = "mixtral-8x7b";
  m.vocab = 32000;
  m.ffn_hidden = 14336;
  m.moe.experts = 8;
  m.moe.top_k = 2;
  m.moe.expert_ffn_hidden = 14336;
  return m;
}

// DeepSeek-V3: MLA, 256 routed + 1 shared expert, top-8, first 3 layers dense.
inline ModelSpec deepseek_v3() {
  ModelSpec m;
  m.id = "deepseek-v3";
  m.layers = 61;
  m.hidden = 7168;
  m.heads = 128;
  m.kv_heads = 128;
  m.head_dim = 128;
  m.ffn_hidden = 18432;
  m.vocab = 129280;
  m.max_seq_len = 4096;
  m.mla = true;
  m.mla_shape = {1536, 512, 128, 64, 128};
  m.moe.experts = 256;
  m.moe.shared_experts = 1;
  m.moe.top_k = 8;
  m.moe.expert_ffn_hidden = 2048;
  m.moe.dense_layers = 3;
  return m;
}

}  // namespace gpuplan::testing
