// Activation memory per layer against Korthikanti et al. 2022, sec. 4 (eqs. 2-5).
#include <gtest/gtest.h>

#include "workload/activations.h"
#include "workload/test_models.h"

namespace gpuplan {
namespace {

// Korthikanti's GPT layer keeps two 1-byte dropout masks (s·b·h each) that a dropout-free
// LLM does not, and FlashAttention keeps a 4-byte log-sum-exp per head and token instead of
// the a·s² scores: the generalised count = Korthikanti's selective figure − 2sbh + lse.
TEST(Activations, GptLayerMatchesKorthikanti) {
  const ModelSpec m = testing::gpt3_175b();
  const double s = 2048, b = 1, h = 12288, a = 96;
  for (int t : {1, 2, 8}) {
    for (bool sp : {false, true}) {
      if (sp && t == 1) continue;
      OpShape shape;
      shape.seq_len = s;
      shape.tp = t;
      shape.sp = sp;
      const double ours = layer_activations(m, 0, shape, Recompute::none).stored_bytes;
      const double masks = 2 * s * b * h / (sp ? t : 1);
      const double lse = 4 * s * b * a / t;
      EXPECT_DOUBLE_EQ(ours, korthikanti_layer_bytes(s, b, h, a, t, sp, Recompute::selective) - masks + lse)
          << "tp " << t << " sp " << sp;
    }
  }
  // Korthikanti eq. (2), no parallelism: s·b·h·(34 + 5·a·s/h).
  EXPECT_DOUBLE_EQ(korthikanti_layer_bytes(s, b, h, a, 1, false, Recompute::none), s * b * h * (34 + 5 * a * s / h));
}

// Materialised attention with dropout (Megatron-LM 2021-22) keeps Korthikanti's 5·a·s²·b bytes
// (softmax output 2, dropout mask 1, dropped probabilities 2) instead of the log-sum-exp, so the
// generalised count is Korthikanti's no-recompute figure less the two hidden-dropout masks his
// layer has; selective recompute frees the 5·a·s²·b again.
TEST(Activations, MaterializedAttentionKeepsKorthikantisScores) {
  const ModelSpec m = testing::gpt3_175b();
  const double s = 2048, b = 2, h = 12288, a = 96;
  for (int t : {1, 8}) {
    OpShape shape;
    shape.seq_len = s;
    shape.micro_batch = b;
    shape.tp = t;
    shape.sp = t > 1;
    shape.attention_materialized = true;
    shape.attention_probs_dropout = true;
    const double masks = 2 * s * b * h / t;
    EXPECT_DOUBLE_EQ(layer_activations(m, 0, shape, Recompute::none).stored_bytes,
                     korthikanti_layer_bytes(s, b, h, a, t, shape.sp, Recompute::none) - masks)
        << "tp " << t;
    // Against the fused kernel's count: + the scores, − the log-sum-exp (4 B per head and token);
    // under selective recompute the scores are rerun, not kept.
    OpShape fused = shape;
    fused.attention_materialized = false;
    fused.attention_probs_dropout = false;
    const double lse = 4 * s * b * a / t;
    EXPECT_DOUBLE_EQ(layer_activations(m, 0, shape, Recompute::none).stored_bytes,
                     layer_activations(m, 0, fused, Recompute::none).stored_bytes + 5 * a * s * s * b / t - lse);
    EXPECT_DOUBLE_EQ(layer_activations(m, 0, shape, Recompute::selective).stored_bytes,
                     layer_activations(m, 0, fused, Recompute::selective).stored_bytes - lse);
  }
}

TEST(Activations, FullRecomputeKeepsTheLayerInput) {
  const ModelSpec m = testing::llama3_8b();
  OpShape shape;
  shape.seq_len = 8192;
  shape.micro_batch = 2;
  const LayerActivations full = layer_activations(m, 0, shape, Recompute::full);
  EXPECT_DOUBLE_EQ(full.stored_bytes, 2.0 * 8192 * 2 * 4096);  // 2·s·b·h bytes
  EXPECT_DOUBLE_EQ(full.working_bytes, layer_activations(m, 0, shape, Recompute::none).stored_bytes);
  // Sequence parallelism splits it tp ways (Korthikanti: 2sbh/t).
  shape.tp = 4;
  shape.sp = true;
  EXPECT_DOUBLE_EQ(layer_activations(m, 0, shape, Recompute::full).stored_bytes, 2.0 * 8192 * 2 * 4096 / 4);
}

TEST(Activations, GrowWithTheMicroBatchAndShrinkWithParallelism) {
  for (const ModelSpec& m : {testing::llama3_8b(), testing::mixtral_8x7b(), testing::deepseek_v3()}) {
    double previous = 0;
    for (double mb : {1.0, 2.0, 4.0}) {
      OpShape shape;
      shape.micro_batch = mb;
      shape.seq_len = 4096;
      const double bytes = layer_activations(m, m.layers - 1, shape, Recompute::none).stored_bytes;
      EXPECT_GT(bytes, previous) << m.id;
      previous = bytes;
      OpShape split = shape;
      split.tp = 2;
      split.sp = true;
      split.cp = 2;
      EXPECT_LT(layer_activations(m, m.layers - 1, split, Recompute::none).stored_bytes, bytes) << m.id;
    }
  }
}

TEST(Activations, SelectiveKeepsLessThanNoneAndMoreThanFull) {
  for (const ModelSpec& m : {testing::llama3_8b(), testing::deepseek_v3()}) {
    OpShape shape;
    shape.seq_len = 4096;
    const std::int64_t last = m.layers - 1;
    const LayerActivations none = layer_activations(m, last, shape, Recompute::none);
    const LayerActivations sel = layer_activations(m, last, shape, Recompute::selective);
    const LayerActivations full = layer_activations(m, last, shape, Recompute::full);
    EXPECT_LT(sel.stored_bytes, none.stored_bytes) << m.id;
    EXPECT_GT(sel.stored_bytes, full.stored_bytes) << m.id;
    // What selective does not keep is recomputed, and alive during that layer's backward.
    EXPECT_DOUBLE_EQ(sel.stored_bytes + sel.working_bytes, none.stored_bytes) << m.id;
  }
}

TEST(Activations, RecomputeNames) {
  EXPECT_EQ(parse_recompute("Selective"), Recompute::selective);
  EXPECT_EQ(recompute_name(Recompute::full), "full");
  EXPECT_FALSE(parse_recompute("some").has_value());
}

}  // namespace
}  // namespace gpuplan
