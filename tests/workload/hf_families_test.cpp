// Hugging Face config families added in issue 18's second round: Qwen2-MoE (a shared expert of
// its own width with a gate), Llama 4 (MoE interleaved with dense layers, chunked attention on
// the RoPE layers, NoPE global layers, the language model nested in a multimodal config) and
// Falcon (multi-query or grouped KV, parallel attention, the remote-code RefinedWeb names).
// Every count below is worked by hand from the fixture's fields.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "test_util.h"
#include "workload/hf_config.h"
#include "workload/ops.h"
#include "workload/params.h"

namespace gpuplan {
namespace {

using nlohmann::json;

std::string family_fixture(const std::string& file) {
  return testing::source_dir() + "/tests/workload/fixtures/" + file;
}

json family_json(const std::string& file) {
  std::ifstream in(family_fixture(file));
  return json::parse(in);
}

// Qwen1.5-MoE-A2.7B (model card: 14.3B total, 2.7B activated). Per layer: attention
// 4 x 2,048^2 = 16,777,216 + q/k/v bias 6,144; 60 experts x 3 x 2,048 x 1,408 = 519,045,120;
// the shared expert 3 x 2,048 x 5,632 = 34,603,008; router 60 x 2,048 + its gate 2,048 =
// 124,928; norms 4,096: 570,560,512, x 24 = 13,693,452,288; embeddings 2 x 151,936 x 2,048 =
// 622,329,856 (+ final norm 2,048): 14,315,784,192. Active per layer: 4 of the experts
// (34,603,008) instead of 60: 86,118,400, x 24 + embeddings = 2,689,173,504.
TEST(HfFamilies, Qwen15MoeSharedExpertOfItsOwnWidth) {
  const ModelSpec m = load_hf_config_file(family_fixture("qwen1.5-moe-a2.7b.json"));
  EXPECT_EQ(m.model_type, "qwen2_moe");
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_EQ(m.moe.experts, 60);
  EXPECT_EQ(m.moe.top_k, 4);
  EXPECT_EQ(m.moe.shared_experts, 1);
  EXPECT_EQ(m.moe.shared_ffn(), 5632);
  EXPECT_TRUE(m.moe.shared_expert_gate);
  EXPECT_EQ(m.max_seq_len, 8192);
  const ParamCounts c = count_params(m);
  EXPECT_EQ(c.moe_layers, 24);
  EXPECT_DOUBLE_EQ(c.moe_layer.shared_experts, 34603008.0);
  EXPECT_DOUBLE_EQ(c.moe_layer.router, 124928.0);
  EXPECT_DOUBLE_EQ(c.total, 14315784192.0);
  EXPECT_DOUBLE_EQ(c.active, 2689173504.0);
  EXPECT_NEAR(c.total / 14.3e9, 1.0, 0.01);
  EXPECT_NEAR(c.active / 2.7e9, 1.0, 0.01);
}

// Qwen2-57B-A14B (model card: 57B total, 14B activated; 57.4B on the Hub). Per layer:
// attention 2 x 3,584^2 + 2 x 3,584 x 512 = 29,360,128 + bias 4,608; 64 x 3 x 3,584 x 2,560 =
// 1,761,607,680; shared 3 x 3,584 x 20,480 = 220,200,960; router 64 x 3,584 + 3,584 = 232,960;
// norms 7,168: 2,011,413,504, x 28 + embeddings 2 x 151,936 x 3,584 (+3,584) = 57,408,658,944.
// Active: 8 experts (220,200,960) per layer: 470,006,784 x 28 + embeddings = 14,249,270,784
// (14.2B against "14B", inside the one-unit precision of the published figure).
TEST(HfFamilies, Qwen2MoeFiftySevenB) {
  const ModelSpec m = load_hf_config_file(family_fixture("qwen2-57b-a14b.json"));
  EXPECT_EQ(m.kv_heads, 4);
  const ParamCounts c = count_params(m);
  EXPECT_DOUBLE_EQ(c.total, 57408658944.0);
  EXPECT_DOUBLE_EQ(c.active, 14249270784.0);
  EXPECT_NEAR(c.total / 57e9, 1.0, 0.01);
  EXPECT_NEAR(c.active / 1e9, 14, 1);
}

TEST(HfFamilies, Qwen2MoeSparseStepAndDenseLayers) {
  json j = family_json("qwen1.5-moe-a2.7b.json");
  j["decoder_sparse_step"] = 2;
  j["mlp_only_layers"] = {1};
  const ModelSpec m = model_from_hf_config(j, "config.json");
  // (i + 1) % 2 == 0 and not listed: 3, 5, 7, ... (layer 1 is listed: dense).
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_FALSE(m.is_moe_layer(1));
  EXPECT_TRUE(m.is_moe_layer(3));
  const ParamCounts c = count_params(m);
  EXPECT_EQ(c.moe_layers, 11);
  EXPECT_DOUBLE_EQ(c.dense_layer.mlp, 3.0 * 2048 * 5632);
  j.erase("shared_expert_intermediate_size");
  EXPECT_THROW(model_from_hf_config(j, "config.json"), Error);
}

// Llama 4 Scout (Meta: 17B active, 109B total with the vision encoder). Language model per
// layer: attention 2 x 5,120^2 + 2 x 5,120 x 1,024 = 62,914,560; 16 experts x 3 x 5,120 x
// 8,192 = 2,013,265,920; the shared expert 125,829,120; router 81,920; norms 10,240:
// 2,202,101,760, x 48 = 105,700,884,480; untied embeddings 2 x 202,048 x 5,120 = 2,068,971,520
// (+5,120): 107,769,861,120. The vision encoder (vision_config: 34 layers of 1,408 wide with a
// 5,632 MLP = 809.5M, patch and position embeddings 1.6M, pixel-shuffle MLP 39.8M, projector
// 4,096 x 5,120 = 21.0M: about 0.87B) is read but not counted: 107.77 + 0.87 = 108.64B, 0.3%
// under the published 109B. Active: one routed + the shared expert: 314,664,960 x 48 +
// embeddings = 17,172,894,720 (17.2B against "17B").
TEST(HfFamilies, Llama4ScoutAllMoeWithChunkedAttention) {
  const ModelSpec m = load_hf_config_file(family_fixture("llama-4-scout-17b-16e.json"));
  EXPECT_EQ(m.family, "llama4");
  EXPECT_EQ(m.model_type, "llama4");
  EXPECT_EQ(m.layers, 48);
  EXPECT_EQ(m.max_seq_len, 10485760);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_TRUE(m.attention_chunked);
  EXPECT_EQ(m.sliding_window, 8192);
  ASSERT_EQ(m.layer_is_sliding.size(), 48u);
  // RoPE (chunked) layers are all but every fourth; layers 3, 7, ..., 47 are NoPE and global.
  for (int i = 0; i < 48; ++i) EXPECT_EQ(m.layer_is_sliding[i], (i + 1) % 4 != 0) << i;
  const ParamCounts c = count_params(m);
  EXPECT_EQ(c.moe_layers, 48);
  EXPECT_DOUBLE_EQ(c.total, 107769861120.0);
  EXPECT_DOUBLE_EQ(c.active, 17172894720.0);
  EXPECT_NEAR((c.total + 0.872e9) / 109e9, 1.0, 0.01);
  EXPECT_NEAR(c.active / 1e9, 17, 1);
}

// Llama 4 Maverick (Meta: 17B active, 400B total): MoE on the odd layers (step 2), 128
// experts, dense layers with a 16,384-wide MLP. Dense layer 62,914,560 + 3 x 5,120 x 16,384
// (251,658,240) + 10,240 = 314,583,040, x 24 = 7,549,992,960; MoE layer 62,914,560 + 128 x
// 125,829,120 + 125,829,120 + 655,360 + 10,240 = 16,295,536,640, x 24 = 391,092,879,360; plus
// embeddings 2,068,976,640: 400,711,848,960. Active 314,583,040 x 24 + 315,238,400 x 24 +
// embeddings = 17,184,691,200.
TEST(HfFamilies, Llama4MaverickInterleavesDenseLayers) {
  const ModelSpec m = load_hf_config_file(family_fixture("llama-4-maverick-17b-128e.json"));
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_TRUE(m.is_moe_layer(1));
  EXPECT_FALSE(m.is_moe_layer(46));
  EXPECT_TRUE(m.is_moe_layer(47));
  EXPECT_EQ(m.ffn_hidden, 16384);
  const ParamCounts c = count_params(m);
  EXPECT_EQ(c.dense_layers, 24);
  EXPECT_EQ(c.moe_layers, 24);
  EXPECT_DOUBLE_EQ(c.total, 400711848960.0);
  EXPECT_DOUBLE_EQ(c.active, 17184691200.0);
  EXPECT_NEAR(c.total / 400e9, 1.0, 0.01);
  // An explicit moe_layers list wins over the step; the text config alone reads the same.
  json j = family_json("llama-4-maverick-17b-128e.json");
  j["text_config"]["moe_layers"] = {0};
  EXPECT_EQ(count_params(model_from_hf_config(j, "config.json")).moe_layers, 1);
  json text = family_json("llama-4-maverick-17b-128e.json")["text_config"];
  EXPECT_DOUBLE_EQ(count_params(model_from_hf_config(text, "config.json")).total, c.total);
  // no_rope_layers of the wrong length names the field.
  text["no_rope_layers"] = {1, 0};
  try {
    model_from_hf_config(text, "config.json");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_rope_layers"), std::string::npos) << e.what();
  }
}

// Chunked attention: a query sees the keys of its own chunk. 16,384 tokens in chunks of
// 8,192: two chunks of mean (8,192 + 1) / 2 = 4,096.5 keys (a sliding window of 8,192 would
// see (8,192 x 8,193 / 2 + 8,192 x 8,192) / 16,384 = 6,144.25). 10,000 tokens: one chunk
// (8,192 x 8,193 / 2 = 33,558,528) and 1,808 more (1,808 x 1,809 / 2 = 1,635,336): 3,519.3864.
TEST(HfFamilies, ChunkedAttentionSeesHalfAChunkOnAverage) {
  EXPECT_DOUBLE_EQ(causal_keys_per_query(16384, 8192, true), 4096.5);
  EXPECT_DOUBLE_EQ(causal_keys_per_query(16384, 8192, false), 6144.25);
  EXPECT_NEAR(causal_keys_per_query(10000, 8192, true), 3519.3864, 1e-9);
  EXPECT_DOUBLE_EQ(causal_keys_per_query(4096, 8192, true), 2048.5);  // shorter than a chunk
  // The model's attention FLOPs use it: Scout's 36 chunked layers at 16,384 tokens.
  const ModelSpec m = load_hf_config_file(family_fixture("llama-4-scout-17b-16e.json"));
  const double per_key = 2.0 * 40 * (128 + 128);
  EXPECT_NEAR(attention_flops_per_token(m, 16384), per_key * (36 * 4096.5 + 12 * 8192.5), 1);
}

// Falcon-7B (model card: 7B). Multi-query: query_key_value 4,544 x (4,544 + 2 x 64) =
// 21,229,568; dense 4,544^2 = 20,647,936; MLP 2 x 4,544 x 18,176 = 165,183,488; LayerNorms
// (weight and bias, two counted) 18,176: 207,079,168 per layer, x 32 = 6,626,533,376; the tied
// embedding 65,024 x 4,544 = 295,469,056 (+ final norm 9,088): 6,922,011,520.
TEST(HfFamilies, Falcon7bMultiQueryParallelAttention) {
  const ModelSpec m = load_hf_config_file(family_fixture("falcon-7b.json"));
  EXPECT_EQ(m.family, "falcon");
  EXPECT_EQ(m.heads, 71);
  EXPECT_EQ(m.kv_heads, 1);
  EXPECT_EQ(m.head_dim, 64);
  EXPECT_EQ(m.ffn_hidden, 4 * 4544);
  EXPECT_EQ(m.mlp, MlpKind::gelu);
  EXPECT_EQ(m.norm, NormKind::layernorm);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.max_seq_len, 2048);
  EXPECT_EQ(m.position, PositionKind::rope);
  EXPECT_TRUE(m.parallel_block);  // parallel_attn: one TP reduction per layer
  EXPECT_DOUBLE_EQ(count_params(m).total, 6922011520.0);
  EXPECT_NEAR(count_params(m).total / 1e9, 7, 1);
  // The original remote-code config (RefinedWebModel, n_head / n_layer) reads the same.
  const ModelSpec rw = load_hf_config_file(family_fixture("falcon-7b-refinedwebmodel.json"));
  EXPECT_DOUBLE_EQ(count_params(rw).total, count_params(m).total);
  // alibi and bias as the flags say; multi_query false gives every head its own K and V.
  json j = family_json("falcon-7b.json");
  j["alibi"] = true;
  j["bias"] = true;
  j["multi_query"] = false;
  const ModelSpec v = model_from_hf_config(j, "config.json");
  EXPECT_EQ(v.position, PositionKind::alibi);
  EXPECT_TRUE(v.qkv_bias && v.mlp_bias);
  EXPECT_EQ(v.kv_heads, 71);
  // Both spellings present and disagreeing is an error naming the field.
  json both = family_json("falcon-7b-refinedwebmodel.json");
  both["num_hidden_layers"] = 30;
  try {
    model_from_hf_config(both, "config.json");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("n_layer"), std::string::npos) << e.what();
  }
}

// Falcon-40B as first published (model_type RefinedWeb: the new decoder architecture, 8 KV
// groups). query_key_value 8,192 x (128 + 16) x 64 = 75,497,472; dense 8,192^2 = 67,108,864;
// MLP 2 x 8,192 x 32,768 = 536,870,912; two LayerNorms 32,768: 679,510,016 per layer, x 60 =
// 40,770,600,960; tied embedding 65,024 x 8,192 = 532,676,608 (+16,384): 41,303,293,952. The
// model card's "40B" is a name, not a count.
TEST(HfFamilies, Falcon40bRefinedWebGroupedKv) {
  const ModelSpec m = load_hf_config_file(family_fixture("falcon-40b-refinedweb.json"));
  EXPECT_EQ(m.model_type, "RefinedWeb");
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.layers, 60);
  EXPECT_DOUBLE_EQ(count_params(m).total, 41303293952.0);
}

// The context length: max_position_embeddings, stretched by a RoPE-scaling factor where the
// config keeps the original length (Qwen2.5's documented YaRN block: 4 x 32,768 = 131,072);
// configs that write a longer max_position_embeddings (Llama 3.1: 131,072, factor 8 of 8,192) keep it.
TEST(HfFamilies, RopeScalingStretchesTheContext) {
  json j = family_json("qwen1.5-moe-a2.7b.json");
  EXPECT_EQ(model_from_hf_config(j, "config.json").max_seq_len, 8192);
  j["rope_scaling"] = {{"type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 8192}};
  EXPECT_EQ(model_from_hf_config(j, "config.json").max_seq_len, 32768);
  j["rope_scaling"] = {{"rope_type", "longrope"}, {"long_factor", {1.0, 2.0}}};  // no factor: unchanged
  EXPECT_EQ(model_from_hf_config(j, "config.json").max_seq_len, 8192);
  j["rope_scaling"] = "yarn";
  EXPECT_THROW(model_from_hf_config(j, "config.json"), Error);
  const ModelSpec scout = load_hf_config_file(family_fixture("llama-4-scout-17b-16e.json"));
  EXPECT_EQ(scout.max_seq_len, 10485760);  // 16 x 8,192 is less than what the config writes
}

}  // namespace
}  // namespace gpuplan
