// TP reductions per layer (workload/tp_reductions.h), the one rule both evaluators use, by hand:
// Megatron's block has two (after attention, after the MLP); a parallel block one; a hybrid's
// single-mixer or MLP-only layer one; a MoE layer's FFN as the expert layout says.
#include <gtest/gtest.h>

#include "workload/test_models.h"
#include "workload/tp_reductions.h"

namespace gpuplan {
namespace {

TEST(TpReductions, DenseBlockHasTwoPerLayer) {
  const ModelSpec m = testing::llama3_8b();
  EXPECT_EQ(tp_reductions(m, 0, MoeFfnReduction::all_experts), 2);
  EXPECT_EQ(tp_reductions_all_layers(m, MoeFfnReduction::none), 2.0 * 32);  // MoE rule moot on a dense model
}

TEST(TpReductions, ParallelBlockReducesOnce) {
  ModelSpec m = testing::llama3_8b();
  m.parallel_block = true;  // Falcon's parallel_attn, GPT-J
  EXPECT_EQ(tp_reductions(m, 5, MoeFfnReduction::shared_experts_only), 1);
  EXPECT_EQ(tp_reductions_all_layers(m, MoeFfnReduction::all_experts), 32);
}

TEST(TpReductions, HybridLayersHoldOneBlockEach) {
  // Nemotron-H's pattern: a Mamba-only layer, an MLP-only layer, an attention-only layer.
  ModelSpec m = testing::llama3_8b();
  m.layers = 3;
  m.layer_mixer = {MixerKind::mamba, MixerKind::none, MixerKind::attention};
  m.layer_has_ffn = {false, true, false};
  EXPECT_EQ(tp_reductions(m, 0, MoeFfnReduction::all_experts), 1);
  EXPECT_EQ(tp_reductions(m, 1, MoeFfnReduction::all_experts), 1);
  EXPECT_EQ(tp_reductions(m, 2, MoeFfnReduction::all_experts), 1);
  EXPECT_EQ(tp_reductions_all_layers(m, MoeFfnReduction::all_experts), 3);
}

TEST(TpReductions, MoeFfnFollowsTheExpertLayout) {
  ModelSpec m = testing::llama3_8b();
  m.layers = 4;
  m.moe.experts = 8;
  m.moe.top_k = 2;
  m.moe.expert_ffn_hidden = 14336;
  m.moe.dense_layers = 1;  // layer 0 dense, 1-3 MoE
  EXPECT_EQ(tp_reductions(m, 0, MoeFfnReduction::none), 2);  // a dense layer is always reduced twice
  EXPECT_EQ(tp_reductions(m, 1, MoeFfnReduction::all_experts), 2);
  EXPECT_EQ(tp_reductions(m, 1, MoeFfnReduction::shared_experts_only), 1);  // no shared experts
  EXPECT_EQ(tp_reductions(m, 1, MoeFfnReduction::none), 1);
  // Serving with EP: attention of every layer + the dense layer's MLP = 2·4 − 3.
  EXPECT_EQ(tp_reductions_all_layers(m, MoeFfnReduction::none), 5);
  m.moe.shared_experts = 1;
  EXPECT_EQ(tp_reductions(m, 1, MoeFfnReduction::shared_experts_only), 2);
  EXPECT_EQ(tp_reductions(m, 1, MoeFfnReduction::none), 1);
}

}  // namespace
}  // namespace gpuplan
