// Eager element-wise chains (workload/eager_elementwise.h): bytes per element by hand, and the
// layer ops that carry them.
#include <gtest/gtest.h>

#include "workload/eager_elementwise.h"
#include "workload/ops.h"
#include "workload/test_models.h"

namespace gpuplan {
namespace {

const Op* find_op(const LayerOps& ops, std::string_view name) {
  for (const Op& op : ops) {
    if (name == op.name) return &op;
  }
  return nullptr;
}

TEST(EagerElementwise, BytesPerElementByHand) {
  // bf16 (a = 2). RMSNorm eager: x.float() 2+4, pow 4+4, mean 4, x*rsqrt 4+4, type_as 4+2,
  // *weight 2+2 = 36; fused: read 2 + write 2 = 4.
  EXPECT_DOUBLE_EQ(eager_elementwise::rmsnorm_bytes(2, true), 36);
  EXPECT_DOUBLE_EQ(eager_elementwise::rmsnorm_bytes(2, false), 4);
  // RoPE eager: x.float() 2+4, complex multiply 4+4, type_as 4+2 = 20; fused 4.
  EXPECT_DOUBLE_EQ(eager_elementwise::rope_bytes(2, true), 20);
  EXPECT_DOUBLE_EQ(eager_elementwise::rope_bytes(2, false), 4);
  // SwiGLU eager: silu 2+2, mul 4+2 = 10; fused: read gate and up, write = 6.
  EXPECT_DOUBLE_EQ(eager_elementwise::swiglu_bytes(2, true), 10);
  EXPECT_DOUBLE_EQ(eager_elementwise::swiglu_bytes(2, false), 6);
  // fp32 activations (a = 4): RMSNorm 4·4 + 28 = 44 against 8.
  EXPECT_DOUBLE_EQ(eager_elementwise::rmsnorm_bytes(4, true), 44);
}

TEST(EagerElementwise, LlamaLayerChargesTheChains) {
  const ModelSpec m = testing::llama3_8b();
  OpShape fused;
  fused.micro_batch = 1;
  fused.seq_len = 8192;
  OpShape eager = fused;
  eager.eager_elementwise = true;
  LayerOps f;
  LayerOps e;
  build_layer_ops(m, 0, fused, f);
  build_layer_ops(m, 0, eager, e);
  const double t = 8192;
  // attn_norm: 8,192 rows × 4,096 × 36 bytes eager, × 4 fused.
  EXPECT_DOUBLE_EQ(find_op(e, "attn_norm")->fwd_bytes, t * 4096 * 36);
  EXPECT_DOUBLE_EQ(find_op(f, "attn_norm")->fwd_bytes, t * 4096 * 4);
  EXPECT_DOUBLE_EQ(find_op(e, "mlp_norm")->fwd_bytes, t * 4096 * 36);
  // RoPE over q and k: (32 + 8) heads × 128 = 5,120 columns × 20 bytes eager, × 4 fused.
  EXPECT_DOUBLE_EQ(find_op(e, "rope")->fwd_bytes, t * 5120 * 20);
  EXPECT_DOUBLE_EQ(find_op(f, "rope")->fwd_bytes, t * 5120 * 4);
  // SwiGLU over the 14,336-wide FFN: 10 bytes eager, 6 fused.
  EXPECT_DOUBLE_EQ(find_op(e, "mlp_act")->fwd_bytes, t * 14336 * 10);
  EXPECT_DOUBLE_EQ(find_op(f, "mlp_act")->fwd_bytes, t * 14336 * 6);
  // The backward stays 2× the forward for memory-bound ops; GEMMs and attention unchanged.
  EXPECT_DOUBLE_EQ(find_op(e, "attn_norm")->bwd_bytes, 2 * t * 4096 * 36);
  EXPECT_DOUBLE_EQ(find_op(e, "qkv_proj")->fwd_bytes, find_op(f, "qkv_proj")->fwd_bytes);
  EXPECT_DOUBLE_EQ(find_op(e, "attention")->fwd_bytes, find_op(f, "attention")->fwd_bytes);
  EXPECT_DOUBLE_EQ(e.fwd_flops(), f.fwd_flops());
}

TEST(EagerElementwise, LayerNormGeluLayerLosesNothing) {
  // GPT-3: LayerNorm, GeLU, learned positions: single native kernels eager too.
  const ModelSpec m = testing::gpt3_175b();
  OpShape fused;
  fused.seq_len = 2048;
  OpShape eager = fused;
  eager.eager_elementwise = true;
  LayerOps f;
  LayerOps e;
  build_layer_ops(m, 0, fused, f);
  build_layer_ops(m, 0, eager, e);
  ASSERT_EQ(f.count, e.count);
  for (int i = 0; i < f.count; ++i) {
    EXPECT_DOUBLE_EQ(f.ops[static_cast<std::size_t>(i)].fwd_bytes, e.ops[static_cast<std::size_t>(i)].fwd_bytes)
        << f.ops[static_cast<std::size_t>(i)].name;
  }
  // LayerNorm: read and write h per token = 2,048 × 12,288 × 4 bytes.
  EXPECT_DOUBLE_EQ(find_op(e, "attn_norm")->fwd_bytes, 2048.0 * 12288 * 4);
}

TEST(EagerElementwise, FinalRmsNormOfTheHead) {
  const ModelSpec m = testing::llama3_8b();
  OpShape eager;
  eager.seq_len = 1024;
  eager.eager_elementwise = true;
  LayerOps head;
  build_head_ops(m, eager, head);
  EXPECT_DOUBLE_EQ(find_op(head, "final_norm")->fwd_bytes, 1024.0 * 4096 * 36);
}

TEST(EagerElementwise, MegatronUnfusedRopeBytesByHand) {
  // bf16 (a = 2), forward: t·cos 2+2, −x2 1+1, cat 2+2, ·sin 2+2, sum 4+2, cat with the empty
  // t_pass 2+2 = 24 bytes per element; backward: ·sin 4, neg 2, the chunk's cat 4, ·cos 4,
  // the branches' sum 6, t_pass's zero-filled gradient 2 and its sum 6 = 28.
  EXPECT_DOUBLE_EQ(eager_elementwise::megatron_rope_fwd_bytes(2), 24);
  EXPECT_DOUBLE_EQ(eager_elementwise::megatron_rope_bwd_bytes(2), 28);
}

TEST(EagerElementwise, MegatronExpertBiasBytesByHand) {
  // bf16 probabilities (a = p = 2): forward b·p 2, t + b·p 2+2+2, cat 2+2 = 12; backward the
  // split's cat 2+2, per product 2+2 and its sum 2, twice = 16. Kernels with 4 experts:
  // 2·4 + 1 = 9 forward, 5·4 + 2 = 22 backward.
  const eager_elementwise::ExpertBiasCost bf16 = eager_elementwise::moe_expert_bias_cost(2, 2, 4);
  EXPECT_DOUBLE_EQ(bf16.fwd_bytes_per_element, 12);
  EXPECT_DOUBLE_EQ(bf16.bwd_bytes_per_element, 16);
  EXPECT_EQ(bf16.kernels_fwd, 9);
  EXPECT_EQ(bf16.kernels_bwd, 22);
  // float32 probabilities: forward b·p 4, t + b·p 2+4+4, cat 4+4, .to(bf16) 4+2 = 28; backward
  // .to's gradient 2+4, t's cast back 4+2, the split's cat 2+2, per product 4+4 and its sum 4,
  // twice = 40. Kernels: 10 forward (the cast), 22 + 2·4 + 1 = 31 backward.
  const eager_elementwise::ExpertBiasCost fp32 = eager_elementwise::moe_expert_bias_cost(2, 4, 4);
  EXPECT_DOUBLE_EQ(fp32.fwd_bytes_per_element, 28);
  EXPECT_DOUBLE_EQ(fp32.bwd_bytes_per_element, 40);
  EXPECT_EQ(fp32.kernels_fwd, 10);
  EXPECT_EQ(fp32.kernels_bwd, 31);
}

// A gpt-oss-120b-shaped attention block (64 heads, 8 KV heads, head_dim 64) whose RoPE cannot
// use the fused kernel: the op is `rope_unfused`, over (64 + 8) × 64 = 4,608 columns of 16,384
// tokens, 24 bytes per element forward (1,811,939,328) and 28 backward (2,113,929,216), against
// the fused `rope`'s 4 and 8. Nothing else in the layer moves.
TEST(EagerElementwise, UnfusedYarnRopeIsItsOwnOp) {
  ModelSpec m = testing::llama3_8b();
  m.heads = 64;
  m.kv_heads = 8;
  m.head_dim = 64;
  m.rope_attention_factor = 1.346574;
  OpShape fused;
  fused.micro_batch = 4;
  fused.seq_len = 4096;
  OpShape unfused = fused;
  unfused.rope_unfused = true;
  LayerOps f;
  LayerOps u;
  build_layer_ops(m, 0, fused, f);
  build_layer_ops(m, 0, unfused, u);
  EXPECT_EQ(find_op(u, "rope"), nullptr);
  const Op* rope = find_op(u, "rope_unfused");
  ASSERT_NE(rope, nullptr);
  EXPECT_DOUBLE_EQ(rope->fwd_bytes, 1811939328.0);
  EXPECT_DOUBLE_EQ(rope->bwd_bytes, 2113929216.0);
  // 12 kernels forward and 8 backward for each of q and k; the fused kernel's default.
  EXPECT_EQ(rope->kernels_fwd, 24);
  EXPECT_EQ(rope->kernels_bwd, 16);
  EXPECT_EQ(find_op(f, "rope")->kernels_fwd, 0);
  EXPECT_DOUBLE_EQ(find_op(f, "rope")->fwd_bytes, 16384.0 * 4608 * 4);
  EXPECT_DOUBLE_EQ(find_op(f, "rope")->bwd_bytes, 16384.0 * 4608 * 8);
  EXPECT_EQ(u.count, f.count);
  // Eager element-wise mode keeps its own (eager) RoPE chain.
  unfused.eager_elementwise = true;
  build_layer_ops(m, 0, unfused, u);
  EXPECT_EQ(find_op(u, "rope_unfused"), nullptr);
  EXPECT_NE(find_op(u, "rope"), nullptr);
}

}  // namespace
}  // namespace gpuplan
