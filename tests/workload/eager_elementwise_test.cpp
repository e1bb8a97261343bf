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

}  // namespace
}  // namespace gpuplan
