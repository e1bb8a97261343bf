// Per-op shapes and FLOPs against hand derivations (docs/model/training.md).
#include "workload/ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "catalog/catalog.h"
#include "workload/activations.h"
#include "workload/ops_mixer.h"
#include "workload/test_models.h"

namespace gpuplan {
namespace {

const Op* find(const LayerOps& ops, std::string_view name) {
  for (const Op& op : ops) {
    if (name == op.name) return &op;
  }
  return nullptr;
}

double gemm_fwd_flops(const LayerOps& ops) {
  double f = 0;
  for (const Op& op : ops) {
    if (op.kind == OpKind::gemm) f += op.fwd_flops;
  }
  return f;
}

TEST(Ops, Gpt3LayerMatchesTwentyFourHSquaredPerToken) {
  // Dense GeLU layer, forward matmuls per token: QKV 6h², out 2h², MLP 16h² = 24h²
  // (Narayanan et al. 2021, eq. 3 before the 3× for backward).
  const ModelSpec m = testing::gpt3_175b();
  OpShape s;
  s.micro_batch = 1;
  s.seq_len = 2048;
  LayerOps ops;
  build_layer_ops(m, 0, s, ops);
  const double h = 12288;
  EXPECT_DOUBLE_EQ(gemm_fwd_flops(ops), 24 * h * h * 2048);
  // Causal attention: 4·h FLOPs per (query, key), (s+1)/2 keys per query.
  const Op* attn = find(ops, "attention");
  ASSERT_NE(attn, nullptr);
  EXPECT_DOUBLE_EQ(attn->fwd_flops, 4 * h * 2048 * (2048 + 1) / 2.0);
  EXPECT_DOUBLE_EQ(attn->bwd_flops, 2.5 * attn->fwd_flops);
  // Parameters: 12h² per layer plus two norms (weights only: LayerNorm biases are the
  // params module's business).
  EXPECT_DOUBLE_EQ(ops.params(), 12 * h * h + 2 * h);
}

// A materialized causal mask (transformers under torch.compile): the kernel computes all s keys of
// every query, twice the causal (s+1)/2, and the op is marked for the masked rate.
TEST(Ops, MaterializedMaskComputesEveryKey) {
  const ModelSpec m = testing::gpt3_175b();
  OpShape s;
  s.seq_len = 2048;
  s.attention_mask_materialized = true;
  LayerOps ops;
  build_layer_ops(m, 0, s, ops);
  const Op* attn = find(ops, "attention");
  ASSERT_NE(attn, nullptr);
  const double h = 12288;
  EXPECT_TRUE(attn->masked);
  EXPECT_DOUBLE_EQ(attn->m, 2048);
  EXPECT_DOUBLE_EQ(attn->fwd_flops, 4 * h * 2048 * 2048);
  EXPECT_DOUBLE_EQ(attn->exps, 2048.0 * 2048 * 96);  // one per (query, key, head): 96 heads
  s.attention_mask_materialized = false;
  LayerOps causal;
  build_layer_ops(m, 0, s, causal);
  EXPECT_FALSE(find(causal, "attention")->masked);
  EXPECT_DOUBLE_EQ(find(causal, "attention")->m, 1024.5);
}

// Ring context parallelism (Transformer Engine's p2p CP): each of the cp steps runs the kernel
// on one chunk pair, so the key span one call sees (Op::m, the kv_half form's keys) is 1/cp of a
// query's causal keys; the rank's FLOPs stay its 1/cp share of the whole causal count. GPT-3
// 175B at s = 2048: (2048 + 1) / 2 = 1,024.5 keys per query, 512.25 at CP 2.
TEST(Ops, ContextParallelKernelSeesOneChunkOfKeys) {
  const ModelSpec m = testing::gpt3_175b();
  OpShape s;
  s.seq_len = 2048;
  LayerOps one;
  build_layer_ops(m, 0, s, one);
  s.cp = 2;
  LayerOps two;
  build_layer_ops(m, 0, s, two);
  const Op* a1 = find(one, "attention");
  const Op* a2 = find(two, "attention");
  ASSERT_NE(a1, nullptr);
  ASSERT_NE(a2, nullptr);
  EXPECT_DOUBLE_EQ(a1->m, 1024.5);
  EXPECT_DOUBLE_EQ(a2->m, 512.25);
  EXPECT_DOUBLE_EQ(a2->fwd_flops, a1->fwd_flops / 2);  // 1,024 of the 2,048 queries per rank
}

// Materialised attention as Megatron-LM v2.5 runs it (workload/ops.cpp materialized_attention),
// by hand for GPT-3 175B at TP 8 (12 local heads of 128), s = 2048, micro-batch 2, fp16 (2 B):
// 2 × 12 = 24 GEMMs per batched kernel, 24 × 2048² = 100,663,296 elements per s×s tensor.
TEST(Ops, MaterializedAttentionIsItsKernels) {
  const ModelSpec m = testing::gpt3_175b();
  OpShape s;
  s.micro_batch = 2;
  s.seq_len = 2048;
  s.tp = 8;
  s.act = Precision::fp16;
  s.gemm = Precision::fp16;
  s.attention_materialized = true;
  s.attention_probs_dropout = true;
  LayerOps ops;
  build_layer_ops(m, 0, s, ops);
  EXPECT_EQ(find(ops, "attention"), nullptr);
  const double e = 24.0 * 2048 * 2048;
  const Op* qk = find(ops, "attn_scores");
  ASSERT_NE(qk, nullptr);
  EXPECT_EQ(qk->kind, OpKind::gemm);
  EXPECT_TRUE(qk->batched);
  EXPECT_TRUE(qk->selective);
  EXPECT_DOUBLE_EQ(qk->count, 24);
  EXPECT_DOUBLE_EQ(qk->m, 2048);
  EXPECT_DOUBLE_EQ(qk->n, 2048);  // every key: the mask is applied after the GEMM
  EXPECT_DOUBLE_EQ(qk->k, 128);
  EXPECT_DOUBLE_EQ(qk->fwd_flops, 2 * 128 * e);  // 2·d per score
  // Reads Q and K (24 × 2 × 2048 × 128 × 2 B), writes the scores (2 B each).
  EXPECT_DOUBLE_EQ(qk->fwd_bytes, 24 * 2 * 2048 * 128 * 2.0 + 2 * e);
  EXPECT_DOUBLE_EQ(qk->params, 0);
  // Softmax forward: reads the unmasked (2049/2)/2048 of each row, writes the row.
  const double unmasked = 2049.0 / 2 / 2048;
  const Op* sm = find(ops, "attn_softmax");
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->kind, OpKind::memory);
  EXPECT_DOUBLE_EQ(sm->fwd_bytes, e * 2 * (unmasked + 1));
  EXPECT_DOUBLE_EQ(sm->bwd_bytes, e * 2 * (2 * unmasked + 1));
  // Dropout: 2 B in, 2 B + a 1-byte mask out; backward 2 B + 1 B in, 2 B out.
  const Op* dr = find(ops, "attn_dropout");
  ASSERT_NE(dr, nullptr);
  EXPECT_DOUBLE_EQ(dr->fwd_bytes, 5 * e);
  EXPECT_DOUBLE_EQ(dr->bwd_bytes, 5 * e);
  const Op* pv = find(ops, "attn_context");
  ASSERT_NE(pv, nullptr);
  EXPECT_TRUE(pv->batched);
  EXPECT_DOUBLE_EQ(pv->m, 2048);
  EXPECT_DOUBLE_EQ(pv->n, 128);
  EXPECT_DOUBLE_EQ(pv->k, 2048);
  EXPECT_DOUBLE_EQ(pv->fwd_flops, 2 * 128 * e);
  // Reads the probabilities (2 B) and V, writes the context.
  EXPECT_DOUBLE_EQ(pv->fwd_bytes, 2 * e + 24 * 2 * 2048 * 128 * 2.0);
  EXPECT_DOUBLE_EQ(pv->bwd_flops, 2 * pv->fwd_flops);
  // Without dropout there is no dropout kernel; the other three stay.
  s.attention_probs_dropout = false;
  LayerOps plain;
  build_layer_ops(m, 0, s, plain);
  EXPECT_EQ(find(plain, "attn_dropout"), nullptr);
  EXPECT_EQ(plain.count + 1, ops.count);
}

TEST(Ops, GqaAndSwigluShapes) {
  const ModelSpec m = testing::llama3_8b();
  OpShape s;
  s.seq_len = 8192;
  LayerOps ops;
  build_layer_ops(m, 0, s, ops);
  const Op* qkv = find(ops, "qkv_proj");
  ASSERT_NE(qkv, nullptr);
  EXPECT_DOUBLE_EQ(qkv->n, (32 + 2 * 8) * 128.0);  // 6,144 columns
  EXPECT_DOUBLE_EQ(qkv->k, 4096);
  const Op* up = find(ops, "mlp_up");
  ASSERT_NE(up, nullptr);
  EXPECT_DOUBLE_EQ(up->n, 2 * 14336.0);  // gate and up fused
  // 8B per layer: 4096·6144 + 4096·4096 + 3·4096·14336 + 2·4096 = 218,112,000.
  EXPECT_DOUBLE_EQ(ops.params(), 4096.0 * 6144 + 4096.0 * 4096 + 3 * 4096.0 * 14336 + 2 * 4096.0);
}

TEST(Ops, TensorParallelismConservesFlopsAndParams) {
  for (const ModelSpec& m : {testing::gpt3_175b(), testing::llama3_8b()}) {
    OpShape one;
    one.seq_len = 2048;
    LayerOps base;
    build_layer_ops(m, 0, one, base);
    for (int tp : {2, 4, 8}) {
      OpShape s = one;
      s.tp = tp;
      LayerOps split;
      build_layer_ops(m, 0, s, split);
      EXPECT_NEAR(split.fwd_flops() * tp, base.fwd_flops(), 1e-9 * base.fwd_flops()) << m.id << " tp " << tp;
      // Norm weights are replicated; everything else is split.
      const double norms = 2.0 * static_cast<double>(m.hidden);
      EXPECT_NEAR((split.params() - norms) * tp, base.params() - norms, 1e-6 * base.params());
    }
  }
}

TEST(Ops, ContextParallelismSplitsTheWork) {
  const ModelSpec m = testing::llama3_8b();
  OpShape one;
  one.seq_len = 32768;
  LayerOps base;
  build_layer_ops(m, 0, one, base);
  OpShape s = one;
  s.cp = 4;
  LayerOps split;
  build_layer_ops(m, 0, s, split);
  EXPECT_NEAR(split.fwd_flops() * 4, base.fwd_flops(), 1e-9 * base.fwd_flops());
}

TEST(Ops, ExpertParallelismKeepsPerGpuExpertWork) {
  // Balanced routing: each GPU runs rows·k token-expert pairs whatever the EP degree.
  const ModelSpec m = testing::mixtral_8x7b();
  OpShape s;
  s.seq_len = 4096;
  for (int ep : {1, 2, 4, 8}) {
    s.ep = ep;
    LayerOps ops;
    build_layer_ops(m, 0, s, ops);
    const Op* up = find(ops, "expert_up");
    ASSERT_NE(up, nullptr);
    EXPECT_DOUBLE_EQ(up->count, 8.0 / ep);
    EXPECT_DOUBLE_EQ(up->fwd_flops, 2.0 * 4096 * 2 * (2 * 14336) * 4096);
    // Expert weights on this GPU: (8/ep) experts × 3 matrices.
    EXPECT_DOUBLE_EQ(up->params + find(ops, "expert_down")->params, 8.0 / ep * 3 * 4096 * 14336);
  }
}

// A Qwen3-30B-A3B-like MoE layer (128 experts of width 768, top-8, hidden 2048) on EP 8 with
// 4096 tokens: the routed-expert tests' shape.
ModelSpec qwen3_30b_like() {
  ModelSpec m = testing::mixtral_8x7b();
  m.hidden = 2048;
  m.moe.experts = 128;
  m.moe.top_k = 8;
  m.moe.expert_ffn_hidden = 768;
  return m;
}

OpShape qwen3_30b_like_shape() {
  OpShape s;
  s.seq_len = 4096;
  s.ep = 8;
  return s;
}

TEST(Ops, GroupedExpertGemmsFollowTheMostLoadedRank) {
  // Qwen3-30B-A3B-like layer: 128 experts of width 768, top-8, on EP 8 with 4096 tokens.
  ModelSpec m = qwen3_30b_like();
  OpShape s = qwen3_30b_like_shape();
  LayerOps ops;
  build_layer_ops(m, 0, s, ops);
  const Op* up = find(ops, "expert_up");
  ASSERT_NE(up, nullptr);
  // Balanced: the EP group's 8 × 4096 × 8 copies over 128 experts = 2048 rows per expert, one
  // grouped GEMM over the 16 local experts.
  EXPECT_DOUBLE_EQ(up->m, 2048);
  EXPECT_DOUBLE_EQ(up->count, 16);
  // The token counts go to the host right after routing: the ops before the sync are the
  // attention block and the router, the permute and the experts come after it.
  ASSERT_GT(ops.host_sync_at, 0);
  EXPECT_STREQ(ops.ops[static_cast<std::size_t>(ops.host_sync_at - 1)].name, "router_topk");
  EXPECT_STREQ(ops.ops[static_cast<std::size_t>(ops.host_sync_at)].name, "dispatch_permute");
  m.moe.experts = 0;
  m.moe.top_k = 0;
  LayerOps dense;
  build_layer_ops(m, 0, OpShape{}, dense);
  EXPECT_EQ(dense.host_sync_at, -1);
  m.moe.experts = 128;
  m.moe.top_k = 8;
  const double flops = up->fwd_flops;
  EXPECT_DOUBLE_EQ(flops, 2.0 * 2048 * (2 * 768) * 2048 * 16);
  // The most loaded rank gets 1.25× the rows: its GEMMs are that long, the mean FLOPs stay.
  s.moe_imbalance = 1.25;
  build_layer_ops(m, 0, s, ops);
  up = find(ops, "expert_up");
  EXPECT_DOUBLE_EQ(up->m, 2560);
  EXPECT_DOUBLE_EQ(up->fwd_flops, flops);
  EXPECT_DOUBLE_EQ(up->bwd_flops, 2 * flops);
}

TEST(Ops, FlexDispatchHasNoSenderSidePermute) {
  // Qwen3-30B-A3B-like layer on EP 8, 4096 tokens, bf16 (2 bytes), top-8. Megatron-Core's
  // AllToAll dispatcher permutes the 4096 × 8 copies by expert before the AllToAll and sorts
  // the 32,768 received copies by local expert after it: 2 passes × (32,768 + 32,768) rows
  // × 2048 × 2 bytes read and written = 536,870,912 bytes. DeepEP/HybridEP (the flex
  // dispatcher) read the tokens in place: only the receiver's sort, 268,435,456 bytes. The
  // combine mirrors the dispatch.
  ModelSpec m = qwen3_30b_like();
  OpShape s = qwen3_30b_like_shape();
  LayerOps ops;
  build_layer_ops(m, 0, s, ops);
  EXPECT_DOUBLE_EQ(find(ops, "dispatch_permute")->fwd_bytes, 2.0 * (32768 + 32768) * 2048 * 2);
  EXPECT_DOUBLE_EQ(find(ops, "combine_unpermute")->fwd_bytes, 536870912.0);
  s.moe_flex_dispatch = true;
  build_layer_ops(m, 0, s, ops);
  EXPECT_DOUBLE_EQ(find(ops, "dispatch_permute")->fwd_bytes, 2.0 * 32768 * 2048 * 2);
  EXPECT_DOUBLE_EQ(find(ops, "combine_unpermute")->fwd_bytes, 268435456.0);
  // Without expert parallelism there is no dispatch: the one local permute stays.
  s.ep = 1;
  build_layer_ops(m, 0, s, ops);
  EXPECT_DOUBLE_EQ(find(ops, "dispatch_permute")->fwd_bytes, 2.0 * 32768 * 2048 * 2);
  EXPECT_FALSE(s.moe_layout_dispatch());
}

// gpt-oss's expert biases: Megatron-Core adds the down-projection's bias times the routing
// probability eagerly (TEGroupedMLP._apply_bias). Qwen3-30B-A3B-like layer on EP 8 (16 local
// experts), 4096 tokens, top-8: 32,768 received copies × 2048 = 67,108,864 elements; with the
// AllToAll dispatcher's bf16 probabilities 12 bytes each forward (805,306,368) and 16 backward
// (1,073,741,824), 2 × 16 + 1 = 33 kernels forward and 5 × 16 + 2 = 82 backward. The flex
// dispatcher's float32 probabilities promote the chain: 28 bytes forward (1,879,048,192), 40
// backward (2,684,354,560), 34 and 82 + 2 × 16 + 1 = 115 kernels. Without biases no such op.
TEST(Ops, ExpertBiasAppliedEagerlyPerExpert) {
  ModelSpec m = qwen3_30b_like();
  OpShape s = qwen3_30b_like_shape();
  LayerOps ops;
  build_layer_ops(m, 0, s, ops);
  EXPECT_EQ(find(ops, "expert_bias"), nullptr);
  m.mlp_bias = true;
  build_layer_ops(m, 0, s, ops);
  const Op* bias = find(ops, "expert_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_DOUBLE_EQ(bias->fwd_bytes, 805306368.0);
  EXPECT_DOUBLE_EQ(bias->bwd_bytes, 1073741824.0);
  EXPECT_DOUBLE_EQ(bias->fwd_flops, 0.0);
  EXPECT_EQ(bias->kernels_fwd, 33);
  EXPECT_EQ(bias->kernels_bwd, 82);
  s.moe_flex_dispatch = true;
  build_layer_ops(m, 0, s, ops);
  bias = find(ops, "expert_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_DOUBLE_EQ(bias->fwd_bytes, 1879048192.0);
  EXPECT_DOUBLE_EQ(bias->bwd_bytes, 2684354560.0);
  EXPECT_EQ(bias->kernels_fwd, 34);
  EXPECT_EQ(bias->kernels_bwd, 115);
}

// gpt-oss's clamped GLU as Megatron-Core runs it: two eager clamps and a concatenation before
// the fused activation. Qwen3-30B-A3B-like layer on EP 8, 4096 tokens, top-8: 32,768 received
// copies × 768 × 2 bytes × 8 passes = 402,653,184 bytes forward, × 10 = 503,316,480 backward;
// the autograd-saved unclamped fc1 output adds 32,768 × 2 × 768 × 2 = 100,663,296 activation
// bytes (freed by selective recompute). Without a clamp, or with the clamp fused, neither.
TEST(Ops, ClampedGluRunsItsClampsEagerly) {
  ModelSpec m = qwen3_30b_like();
  OpShape s = qwen3_30b_like_shape();
  s.glu_clamp_unfused = true;
  LayerOps ops;
  build_layer_ops(m, 0, s, ops);
  EXPECT_EQ(find(ops, "expert_act_clamp"), nullptr);
  const LayerActivations plain = layer_activations(m, 0, s, Recompute::none);
  m.glu_clamp = 7.0;
  build_layer_ops(m, 0, s, ops);
  const Op* clamp = find(ops, "expert_act_clamp");
  ASSERT_NE(clamp, nullptr);
  EXPECT_DOUBLE_EQ(clamp->fwd_bytes, 402653184.0);
  EXPECT_DOUBLE_EQ(clamp->bwd_bytes, 503316480.0);
  EXPECT_EQ(clamp->kernels_fwd, 3);  // clamp, clamp, cat
  EXPECT_EQ(clamp->kernels_bwd, 7);  // ge, le, and, where; le, where; the chunk's cat
  EXPECT_TRUE(clamp->selective);
  EXPECT_DOUBLE_EQ(layer_activations(m, 0, s, Recompute::none).stored_bytes - plain.stored_bytes, 100663296.0);
  EXPECT_DOUBLE_EQ(layer_activations(m, 0, s, Recompute::selective).stored_bytes,
                   layer_activations(m, 0, OpShape(qwen3_30b_like_shape()), Recompute::selective).stored_bytes);
  s.glu_clamp_unfused = false;
  build_layer_ops(m, 0, s, ops);
  EXPECT_EQ(find(ops, "expert_act_clamp"), nullptr);
}

TEST(Ops, MlaShapesAndDenseFirstLayers) {
  const ModelSpec m = testing::deepseek_v3();
  OpShape s;
  s.seq_len = 4096;
  LayerOps dense;
  build_layer_ops(m, 0, s, dense);
  EXPECT_NE(find(dense, "mlp_up"), nullptr);
  EXPECT_EQ(find(dense, "expert_up"), nullptr);
  LayerOps moe;
  build_layer_ops(m, 3, s, moe);
  EXPECT_NE(find(moe, "expert_up"), nullptr);
  EXPECT_NE(find(moe, "shared_up"), nullptr);
  const Op* kv_up = find(moe, "kv_up");
  ASSERT_NE(kv_up, nullptr);
  EXPECT_DOUBLE_EQ(kv_up->n, 128.0 * (128 + 128));
  EXPECT_DOUBLE_EQ(kv_up->k, 512);
  // MLA attention: q·k over 192 dims, p·v over 128.
  const Op* attn = find(moe, "attention");
  EXPECT_DOUBLE_EQ(attn->fwd_flops, 2.0 * 4096 * (4096 + 1) / 2.0 * 128 * (192 + 128));
  // Attention parameters of one layer: 7168·1536 + 1536·128·192 + 7168·576 + 512·128·256
  // + 128·128·7168 (+ norms 1536 + 512) = 187,107,328 + 2,048.
  double attn_params = 0;
  for (const Op& op : moe) {
    if (op.group == OpGroup::attention) attn_params += op.params;
  }
  EXPECT_DOUBLE_EQ(attn_params,
                   7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256 + 128.0 * 128 * 7168);
  EXPECT_EQ(layer_kind(m, 0), 0);
  EXPECT_EQ(layer_kind(m, 3), 2);
}

TEST(Ops, CausalAndSlidingKeys) {
  EXPECT_DOUBLE_EQ(causal_keys_per_query(4, 0), 2.5);  // (1+2+3+4)/4
  // Window 2 over 4 queries: 1, 2, 2, 2 keys.
  EXPECT_DOUBLE_EQ(causal_keys_per_query(4, 2), 7.0 / 4);
  EXPECT_DOUBLE_EQ(causal_keys_per_query(4, 8), 2.5);
}

TEST(Ops, Fp8MarksLinearLayersAndAddsCasts) {
  const ModelSpec m = testing::llama3_8b();
  OpShape s;
  s.gemm = Precision::fp8;
  LayerOps ops;
  build_layer_ops(m, 0, s, ops);
  EXPECT_TRUE(find(ops, "qkv_proj")->low_precision);
  EXPECT_NE(find(ops, "fp8_cast"), nullptr);
  LayerOps head;
  build_head_ops(m, s, head);
  EXPECT_FALSE(find(head, "logits")->low_precision);  // the output layer stays 16-bit
}

// NVFP4 with Transformer Engine's random Hadamard transforms (OpShape::nvfp4_rht): each cast
// input is read twice more (the RHT amax kernel and the separate column-wise RHT cast), the
// activations in the forward and the output gradients in the backward. Llama 3 8B at 8,192
// tokens, TP 1: Σ(m·k + m·n) over qkv (4096 + 6144), out (4096 + 4096), up (4096 + 28672),
// down (14336 + 4096) = 8192 · 69,632 = 570,425,344 elements, × 2 reads × 2 B = 2,281,701,376 B,
// half each way; none without the transforms, and the one cast op is unchanged.
TEST(Ops, Nvfp4HadamardTransformsReadEachCastInputTwiceMore) {
  const ModelSpec m = testing::llama3_8b();
  OpShape s;
  s.seq_len = 8192;
  s.gemm = Precision::fp4;
  s.scaling = ScalingRecipe::nvfp4;
  LayerOps plain;
  build_layer_ops(m, 0, s, plain);
  EXPECT_EQ(find(plain, "nvfp4_rht"), nullptr);
  s.nvfp4_rht = true;
  LayerOps rht;
  build_layer_ops(m, 0, s, rht);
  const Op* op = find(rht, "nvfp4_rht");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->kind, OpKind::memory);
  EXPECT_DOUBLE_EQ(op->fwd_bytes, 8192.0 * 69632 * 2 * 2 / 2);
  EXPECT_DOUBLE_EQ(op->bwd_bytes, 8192.0 * 69632 * 2 * 2 / 2);
  EXPECT_DOUBLE_EQ(find(rht, "fp8_cast")->fwd_bytes, find(plain, "fp8_cast")->fwd_bytes);
  EXPECT_EQ(rht.count, plain.count + 1);
}

TEST(Ops, HeadAndEmbedding) {
  const ModelSpec m = testing::llama3_8b();
  OpShape s;
  s.seq_len = 8192;
  s.tp = 2;
  LayerOps head;
  build_head_ops(m, s, head);
  const Op* logits = find(head, "logits");
  EXPECT_DOUBLE_EQ(logits->fwd_flops, 2.0 * 8192 * 4096 * 128256 / 2);
  LayerOps emb;
  build_embedding_ops(m, s, emb);
  EXPECT_DOUBLE_EQ(emb.params(), 128256.0 * 4096 / 2);
}

// Every field of two ops, doubles by their bits.
bool ops_bits_equal(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool ops_op_equal(const Op& a, const Op& b) {
  return std::string_view(a.name) == b.name && a.kind == b.kind && a.group == b.group && ops_bits_equal(a.m, b.m) &&
         ops_bits_equal(a.n, b.n) && ops_bits_equal(a.k, b.k) && ops_bits_equal(a.count, b.count) &&
         a.low_precision == b.low_precision && a.routed_expert == b.routed_expert && a.masked == b.masked &&
         a.selective == b.selective && a.saves_for_backward == b.saves_for_backward && a.batched == b.batched &&
         a.modules == b.modules && ops_bits_equal(a.fwd_flops, b.fwd_flops) &&
         ops_bits_equal(a.bwd_flops, b.bwd_flops) && ops_bits_equal(a.exps, b.exps) &&
         ops_bits_equal(a.fwd_bytes, b.fwd_bytes) && ops_bits_equal(a.bwd_bytes, b.bwd_bytes) &&
         ops_bits_equal(a.params, b.params);
}

// build_layer_ops_after_mixer on another layer's ops gives build_layer_ops' ops to the bit, for
// every pair of layer kinds with the same mixer in every built-in model, under shapes that
// change every term (TP with SP, EP, fp8 with 1-D block scales, eager element-wise chains).
TEST(Ops, AfterTheMixerIsTheWholeLayerToTheBit) {
  std::vector<OpShape> shapes(6);
  shapes[1].tp = 4;
  shapes[1].sp = true;
  shapes[1].ep = 8;
  shapes[1].gemm = Precision::fp8;
  shapes[2].micro_batch = 3;
  shapes[2].seq_len = 4096;
  shapes[2].ep = 4;
  shapes[2].moe_imbalance = 1.3;
  shapes[2].gemm = Precision::fp8;
  shapes[2].scaling = ScalingRecipe::blockwise;
  shapes[2].moe_fused_dispatch = true;
  shapes[3].eager_elementwise = true;
  shapes[3].cp = 2;
  shapes[4].ep = 4;
  shapes[4].gemm = Precision::fp4;
  shapes[4].scaling = ScalingRecipe::nvfp4;
  shapes[4].nvfp4_rht = true;
  // Every op-adding switch at once: the most ops a layer can have must fit kMaxLayerOps.
  shapes[5] = shapes[4];
  shapes[5].rope_unfused = true;
  shapes[5].glu_clamp_unfused = true;
  shapes[5].attention_materialized = true;
  shapes[5].attention_probs_dropout = true;
  shapes[5].moe_fused_dispatch = true;
  int pairs = 0;
  for (const ModelSpec& m : default_catalog().models) {
    std::vector<std::int64_t> firsts;  // the first layer of each kind
    std::vector<int> seen;
    for (std::int64_t i = 0; i < m.layers; ++i) {
      const int kind = layer_kind(m, i);
      if (std::find(seen.begin(), seen.end(), kind) == seen.end()) {
        seen.push_back(kind);
        firsts.push_back(i);
      }
    }
    for (const std::int64_t a : firsts) {
      for (const std::int64_t b : firsts) {
        if (!same_mixer_ops(m, a, b)) continue;
        ++pairs;
        for (const OpShape& s : shapes) {
          LayerOps whole;
          MixerPrefix whole_mixer;
          build_layer_ops(m, b, s, whole, whole_mixer);
          LayerOps shared;
          MixerPrefix mixer;
          build_layer_ops(m, a, s, shared, mixer);
          build_layer_ops_after_mixer(m, b, s, mixer, shared);
          ASSERT_EQ(shared.count, whole.count) << m.id << " layers " << a << ", " << b;
          EXPECT_LE(whole.count, kMaxLayerOps) << m.id;
          EXPECT_EQ(shared.host_sync_at, whole.host_sync_at) << m.id;
          EXPECT_EQ(mixer.count, whole_mixer.count) << m.id;
          EXPECT_TRUE(ops_bits_equal(mixer.fp8_cast_bytes, whole_mixer.fp8_cast_bytes)) << m.id;
          EXPECT_TRUE(ops_bits_equal(mixer.nvfp4_rht_bytes, whole_mixer.nvfp4_rht_bytes)) << m.id;
          for (int i = 0; i < whole.count; ++i) {
            EXPECT_TRUE(ops_op_equal(shared.ops[static_cast<std::size_t>(i)], whole.ops[static_cast<std::size_t>(i)]))
                << m.id << " layers " << a << ", " << b << " op " << whole.ops[static_cast<std::size_t>(i)].name;
          }
        }
      }
    }
  }
  EXPECT_GT(pairs, 20);  // every model's kind with itself, and the kinds that share a mixer
}

}  // namespace
}  // namespace gpuplan
