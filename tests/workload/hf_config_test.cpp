// Hugging Face config.json import: one real config per model_type, the error messages for
// bad input, the zoo's [config] tables, and a bounded random-mutation test.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/error.h"
#include "test_util.h"
#include "workload/hf_config.h"
#include "workload/params.h"

namespace gpuplan {
namespace {

using nlohmann::json;

std::string fixture_path(const std::string& file) { return testing::source_dir() + "/tests/workload/fixtures/" + file; }

json fixture_json(const std::string& file) {
  std::ifstream in(fixture_path(file));
  return json::parse(in);
}

const std::vector<std::string> kFixtures = {"llama-3.1-8b.json",     "mistral-7b-v0.1.json", "mixtral-8x7b-v0.1.json",
                                            "qwen2.5-7b.json",       "qwen3-0.6b.json",      "qwen3-30b-a3b.json",
                                            "deepseek-v2-lite.json", "deepseek-v3.json",     "gpt2.json",
                                            "gpt-oss-20b.json",      "mpt-7b.json",          "minitron-8b.json",
                                            "phi-3-mini-4k.json",    "phi-4.json",           "gemma-2-9b.json",
                                            "gemma-3-1b.json",       "gemma-3-4b-it.json",   "qwen1.5-moe-a2.7b.json",
                                            "qwen2-57b-a14b.json",   "llama-4-scout-17b-16e.json",
                                            "llama-4-maverick-17b-128e.json", "falcon-7b.json",
                                            "falcon-7b-refinedwebmodel.json", "falcon-40b-refinedweb.json",
                                            "jamba-v0.1.json",       "nemotron-h-8b.json",   "kimi-k2.json"};

std::string hf_error(const json& config, bool strict = false) {
  try {
    model_from_hf_config(config, "config.json", strict);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(HfConfig, EverySupportedModelTypeHasAFixture) {
  std::set<std::string> covered;
  for (const auto& file : kFixtures) {
    const json j = fixture_json(file);
    covered.insert(j["model_type"].get<std::string>());
    // A multimodal config's language model (llama4 → llama4_text) counts for its own type.
    if (j.contains("text_config") && j["text_config"].contains("model_type"))
      covered.insert(j["text_config"]["model_type"].get<std::string>());
  }
  for (const auto& type : supported_hf_model_types()) EXPECT_TRUE(covered.contains(type)) << type;
}

TEST(HfConfig, Llama) {
  const ModelSpec m = load_hf_config_file(fixture_path("llama-3.1-8b.json"));
  EXPECT_EQ(m.id, "llama-3.1-8b");
  EXPECT_EQ(m.model_type, "llama");
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.max_seq_len, 131072);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(m.mlp, MlpKind::swiglu);
}

// Phi-3-mini-4k (model card: 3.8B; HF reports 3,821,079,552): Llama's shapes, 32 heads x 96,
// untied 32,064-token vocabulary, a 2,047-token window on every layer.
// 2 x 32,064 x 3,072 = 197.0M embeddings; per layer 4 x 3,072^2 = 37.7M attention +
// 3 x 3,072 x 8,192 = 75.5M MLP, x 32 = 3,624.0M; total 3,821.1M.
TEST(HfConfig, Phi3Mini) {
  const ModelSpec m = load_hf_config_file(fixture_path("phi-3-mini-4k.json"));
  EXPECT_EQ(m.model_type, "phi3");
  EXPECT_EQ(m.sliding_window, 2047);
  ASSERT_EQ(m.layer_is_sliding.size(), 32u);
  EXPECT_EQ(m.max_seq_len, 4096);
  EXPECT_NEAR(count_params(m).total, 3.821e9, 0.01 * 3.821e9);
}

// Phi-4 (model card: 14B; HF reports 14.7B): 40 layers, GQA 40 query / 10 KV heads of 128, no
// window. 2 x 100,352 x 5,120 = 1,027.6M embeddings; per layer 2 x 5,120^2 + 2 x 5,120 x 1,280
// = 65.5M attention + 3 x 5,120 x 17,920 = 275.3M MLP, x 40 = 13,631M; total 14,659M.
TEST(HfConfig, Phi4) {
  const ModelSpec m = load_hf_config_file(fixture_path("phi-4.json"));
  EXPECT_EQ(m.kv_heads, 10);
  EXPECT_EQ(m.sliding_window, 0);
  EXPECT_TRUE(m.layer_is_sliding.empty());
  EXPECT_EQ(m.max_seq_len, 16384);
  EXPECT_NEAR(count_params(m).total, 14.7e9, 0.01 * 14.7e9);
}

// Gemma 2 9B (model card: 9.24B): 16 heads x 256 (4,096, not the 3,584 hidden), 8 KV heads,
// a tied 256,000-token embedding, a 4,096-token window on layers 0, 2, 4, ...
// 256,000 x 3,584 = 917.5M; per layer 3 x 3,584 x 4,096 (q, o and k+v: 2 x 3,584 x 2,048)
// = 44.0M + 3 x 3,584 x 14,336 = 154.1M, x 42 = 8,323.6M; total 9,241.1M.
TEST(HfConfig, Gemma2SlidesEveryOtherLayerAndTiesTheHead) {
  const ModelSpec m = load_hf_config_file(fixture_path("gemma-2-9b.json"));
  EXPECT_EQ(m.model_type, "gemma2");
  EXPECT_EQ(m.head_dim, 256);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.sliding_window, 4096);
  ASSERT_EQ(m.layer_is_sliding.size(), 42u);
  EXPECT_TRUE(m.layer_is_sliding[0]);
  EXPECT_FALSE(m.layer_is_sliding[1]);
  EXPECT_TRUE(m.layer_is_sliding[40]);
  EXPECT_FALSE(m.layer_is_sliding[41]);
  EXPECT_NEAR(count_params(m).total, 9.24e9, 0.01 * 9.24e9);
}

// Gemma 3 1B (model card: 1B; 999.9M): 4 query heads x 256 over 1 KV head, a tied 262,144-token
// embedding, 5 sliding (512) layers to 1 global. 262,144 x 1,152 = 302.0M; per layer
// 2 x 1,152 x 1,024 (q, o) + 2 x 1,152 x 256 (k, v) = 2.95M + 3 x 1,152 x 6,912 = 23.89M,
// x 26 = 697.8M; total 999.9M.
TEST(HfConfig, Gemma3TextFiveLocalToOneGlobal) {
  const ModelSpec m = load_hf_config_file(fixture_path("gemma-3-1b.json"));
  EXPECT_EQ(m.model_type, "gemma3_text");
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_TRUE(m.qk_norm);
  EXPECT_EQ(m.max_seq_len, 32768);
  ASSERT_EQ(m.layer_is_sliding.size(), 26u);
  for (int i = 0; i < 26; ++i) EXPECT_EQ(m.layer_is_sliding[i], (i + 1) % 6 != 0) << i;
  EXPECT_NEAR(count_params(m).total, 1.0e9, 0.01 * 1.0e9);
  // The multimodal wrapper reads the same shape from text_config.
  json wrapped = {{"model_type", "gemma3"}, {"text_config", fixture_json("gemma-3-1b.json")}};
  wrapped["text_config"].erase("model_type");
  const ModelSpec w = model_from_hf_config(wrapped, "config.json");
  EXPECT_EQ(w.layers, 26);
  EXPECT_DOUBLE_EQ(count_params(w).total, count_params(m).total);
}

// Gemma 3 4B (multimodal, model card 4.3B = 3.88B language model + 0.42B SigLIP encoder): the
// language model from text_config, defaults (vocab 262,208) filled as Gemma3TextConfig does.
// 262,208 x 2,560 = 671.2M; per layer 2 x 2,560 x 2,048 + 2 x 2,560 x 1,024 = 15.7M +
// 3 x 2,560 x 10,240 = 78.6M, x 34 = 3,208.6M; total 3,879.8M.
TEST(HfConfig, Gemma3MultimodalReadsTheLanguageModel) {
  const ModelSpec m = load_hf_config_file(fixture_path("gemma-3-4b-it.json"));
  EXPECT_EQ(m.vocab, 262208);
  EXPECT_EQ(m.sliding_window, 1024);
  EXPECT_EQ(m.max_seq_len, 131072);
  EXPECT_NEAR(count_params(m).total, 3.88e9, 0.01 * 3.88e9);
}

TEST(HfConfig, EncoderModelsAreNotSupported) {
  const json bert = {{"model_type", "bert"}, {"hidden_size", 768}, {"num_hidden_layers", 12}};
  EXPECT_NE(hf_error(bert).find("not supported: decoder-only transformers"), std::string::npos) << hf_error(bert);
  const json t5 = {{"model_type", "t5"}, {"d_model", 512}};
  EXPECT_NE(hf_error(t5).find("not supported: decoder-only transformers"), std::string::npos);
  const json custom = {{"model_type", "my_seq2seq"}, {"is_encoder_decoder", true}};
  EXPECT_NE(hf_error(custom).find("not supported: decoder-only transformers"), std::string::npos);
  // An unknown decoder type keeps the list of what gpuplan reads.
  const json unknown = {{"model_type", "my_decoder"}};
  EXPECT_NE(hf_error(unknown).find("unsupported model_type 'my_decoder'"), std::string::npos);
}

TEST(HfConfig, MistralSlidesEveryLayer) {
  const ModelSpec m = load_hf_config_file(fixture_path("mistral-7b-v0.1.json"));
  EXPECT_EQ(m.sliding_window, 4096);
  ASSERT_EQ(m.layer_is_sliding.size(), 32u);
  for (bool s : m.layer_is_sliding) EXPECT_TRUE(s);
}

TEST(HfConfig, MixtralNullWindowMeansFullAttention) {
  const ModelSpec m = load_hf_config_file(fixture_path("mixtral-8x7b-v0.1.json"));
  EXPECT_EQ(m.moe.experts, 8);
  EXPECT_EQ(m.moe.top_k, 2);
  EXPECT_EQ(m.moe.expert_ffn_hidden, 14336);
  EXPECT_EQ(m.sliding_window, 0);
  EXPECT_TRUE(m.layer_is_sliding.empty());
}

TEST(HfConfig, Qwen2HasQkvBiasAndNoWindowUnlessEnabled) {
  const ModelSpec m = load_hf_config_file(fixture_path("qwen2.5-7b.json"));
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_FALSE(m.attn_out_bias);
  EXPECT_EQ(m.sliding_window, 0);  // use_sliding_window = false
  // Published: 7.61B, 6.53B non-embedding (model card).
  const ParamCounts c = count_params(m);
  EXPECT_NEAR(c.total / 1e9, 7.61, 0.01);
  EXPECT_NEAR(c.non_embedding / 1e9, 6.53, 0.01);
  // With the window switched on, layers from max_window_layers on slide.
  json j = fixture_json("qwen2.5-7b.json");
  j["use_sliding_window"] = true;
  j["sliding_window"] = 4096;
  j["max_window_layers"] = 20;
  const ModelSpec w = model_from_hf_config(j, "config.json");
  ASSERT_EQ(w.layer_is_sliding.size(), 28u);
  EXPECT_FALSE(w.layer_is_sliding[19]);
  EXPECT_TRUE(w.layer_is_sliding[20]);
}

TEST(HfConfig, Qwen3TiedWithExplicitHeadDim) {
  const ModelSpec m = load_hf_config_file(fixture_path("qwen3-0.6b.json"));
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_TRUE(m.qk_norm);
  EXPECT_EQ(m.head_dim, 128);  // 16 heads × 128 = 2048 ≠ hidden 1024
  // Model card: 0.6B parameters, 0.44B without the embedding.
  const ParamCounts c = count_params(m);
  EXPECT_NEAR(c.total / 1e9, 0.60, 0.01);
  EXPECT_NEAR(c.non_embedding / 1e9, 0.44, 0.01);
}

TEST(HfConfig, Qwen3Moe) {
  const ModelSpec m = load_hf_config_file(fixture_path("qwen3-30b-a3b.json"));
  EXPECT_EQ(m.moe.experts, 128);
  EXPECT_EQ(m.moe.top_k, 8);
  EXPECT_EQ(m.moe.expert_ffn_hidden, 768);
  EXPECT_EQ(count_params(m).moe_layers, 48);
  // mlp_only_layers makes those layers dense, with intermediate_size.
  json j = fixture_json("qwen3-30b-a3b.json");
  j["mlp_only_layers"] = {0, 5};
  const ModelSpec d = model_from_hf_config(j, "config.json");
  EXPECT_FALSE(d.is_moe_layer(0));
  EXPECT_TRUE(d.is_moe_layer(1));
  EXPECT_FALSE(d.is_moe_layer(5));
  EXPECT_EQ(count_params(d).dense_layers, 2);
  EXPECT_EQ(count_params(d).dense_layer.mlp, 3.0 * 2048 * 6144);
}

TEST(HfConfig, DeepSeekV2LiteHasNoQueryLatent) {
  const ModelSpec m = load_hf_config_file(fixture_path("deepseek-v2-lite.json"));
  EXPECT_TRUE(m.mla);
  EXPECT_EQ(m.mla_shape.q_lora_rank, 0);
  EXPECT_EQ(m.moe.shared_experts, 2);
  EXPECT_EQ(m.moe.dense_layers, 1);
  // Model card: 15.7B total, 2.4B activated (input embedding left out: 2.45B).
  const ParamCounts c = count_params(m);
  EXPECT_NEAR(c.total / 1e9, 15.7, 0.157);
  EXPECT_NEAR(c.active_without_input_embedding() / 1e9, 2.4, 0.1);
  EXPECT_FALSE(m.moe.router_bias);  // topk_method greedy: no correction bias
}

TEST(HfConfig, DeepSeekV3) {
  const ModelSpec m = load_hf_config_file(fixture_path("deepseek-v3.json"));
  EXPECT_EQ(m.mla_shape.kv_lora_rank, 512);
  EXPECT_EQ(m.mla_shape.qk_rope_head_dim, 64);
  EXPECT_EQ(m.head_dim, 192);
  EXPECT_EQ(m.moe.experts, 256);
  EXPECT_EQ(m.moe.dense_layers, 3);
  EXPECT_EQ(m.mtp_layers, 1);
  EXPECT_TRUE(m.moe.router_bias);
  // moe_layer_freq 2: MoE only on even layers past the dense ones (layer_idx % freq == 0).
  json j = fixture_json("deepseek-v3.json");
  j["moe_layer_freq"] = 2;
  const ModelSpec f = model_from_hf_config(j, "config.json");
  EXPECT_FALSE(f.is_moe_layer(2));
  EXPECT_TRUE(f.is_moe_layer(4));
  EXPECT_FALSE(f.is_moe_layer(5));
  EXPECT_EQ(count_params(f).moe_layers, 29);  // 4, 6, ..., 60
}

TEST(HfConfig, DeepSeekV3GroupLimitedRouting) {
  // n_group 8, topk_group 4: the node-limited routing of arXiv:2412.19437 sec. 2.1.2.
  const ModelSpec m = load_hf_config_file(fixture_path("deepseek-v3.json"));
  EXPECT_EQ(m.moe.groups, 8);
  EXPECT_EQ(m.moe.group_limit, 4);
  json j = fixture_json("deepseek-v3.json");
  j["n_group"] = 3;  // 256 experts do not split into 3 groups
  try {
    model_from_hf_config(j, "config.json");
    ADD_FAILURE() << "n_group 3 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("n_group"), std::string::npos) << e.what();
  }
  j = fixture_json("deepseek-v3.json");
  j["topk_group"] = 9;
  try {
    model_from_hf_config(j, "config.json");
    ADD_FAILURE() << "topk_group 9 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("topk_group"), std::string::npos) << e.what();
  }
}

TEST(HfConfig, Gpt2NullInnerIsFourTimesHidden) {
  const ModelSpec m = load_hf_config_file(fixture_path("gpt2.json"));
  EXPECT_EQ(m.ffn_hidden, 3072);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.position, PositionKind::learned);
  EXPECT_EQ(m.mlp, MlpKind::gelu);
  EXPECT_TRUE(m.norm_bias);
}

TEST(HfConfig, GptOss) {
  const ModelSpec m = load_hf_config_file(fixture_path("gpt-oss-20b.json"));
  EXPECT_EQ(m.moe.experts, 32);
  EXPECT_EQ(m.moe.top_k, 4);
  EXPECT_EQ(m.head_dim, 64);
  EXPECT_EQ(m.sliding_window, 128);
  ASSERT_EQ(m.layer_is_sliding.size(), 24u);
  EXPECT_TRUE(m.layer_is_sliding[0]);
  EXPECT_FALSE(m.layer_is_sliding[1]);
  EXPECT_TRUE(m.attn_sinks);
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_TRUE(m.moe.router_bias);
  EXPECT_DOUBLE_EQ(m.glu_clamp, 7.0);  // swiglu_limit
  // Model card: 20.91B total, 3.61B active (without the input embedding).
  const ParamCounts c = count_params(m);
  EXPECT_NEAR(c.total / 1e9, 20.91, 0.01);
  EXPECT_NEAR(c.active_without_input_embedding() / 1e9, 3.61, 0.01);
  // Without layer_types, GptOssConfig alternates sliding (even) and full (odd) layers.
  json j = fixture_json("gpt-oss-20b.json");
  j.erase("layer_types");
  EXPECT_EQ(model_from_hf_config(j, "config.json").layer_is_sliding, m.layer_is_sliding);
  // The two top-k keys must agree.
  j["experts_per_token"] = 2;
  EXPECT_NE(hf_error(j).find("num_experts_per_tok"), std::string::npos);
}

// YaRN's attention factor (transformers _compute_yarn_parameters): gpt-oss's factor 32 alone
// gives 0.1·ln 32 + 1 = 1.3466; DeepSeek-V3's mscale = mscale_all_dim = 1 gives 1 (the ratio);
// an attention_factor key wins; other scalings (Llama 3.1's "llama3") leave 1.
TEST(HfConfig, YarnAttentionFactor) {
  EXPECT_NEAR(load_hf_config_file(fixture_path("gpt-oss-20b.json")).rope_attention_factor, 1.346574, 1e-6);
  EXPECT_DOUBLE_EQ(load_hf_config_file(fixture_path("deepseek-v3.json")).rope_attention_factor, 1.0);
  json j = fixture_json("gpt-oss-20b.json");
  j["rope_scaling"]["attention_factor"] = 1.25;
  EXPECT_DOUBLE_EQ(model_from_hf_config(j, "config.json").rope_attention_factor, 1.25);
  j["rope_scaling"]["attention_factor"] = -1;
  EXPECT_NE(hf_error(j).find("attention_factor"), std::string::npos);
  // mscale 0.707 over mscale_all_dim 0.707 (DeepSeek-V2-Lite): the ratio, 1.
  EXPECT_DOUBLE_EQ(load_hf_config_file(fixture_path("deepseek-v2-lite.json")).rope_attention_factor, 1.0);
  j.erase("rope_scaling");
  EXPECT_DOUBLE_EQ(model_from_hf_config(j, "config.json").rope_attention_factor, 1.0);
}

TEST(HfConfig, Mpt) {
  const ModelSpec m = load_hf_config_file(fixture_path("mpt-7b.json"));
  EXPECT_EQ(m.hidden, 4096);
  EXPECT_EQ(m.ffn_hidden, 16384);  // expansion_ratio 4
  EXPECT_EQ(m.position, PositionKind::alibi);
  EXPECT_FALSE(m.qkv_bias);  // no_bias
  EXPECT_FALSE(m.norm_bias);
  EXPECT_TRUE(m.tied_embeddings);
  // Model card: 6.7B. 32·(4·4096² + 2·4096·16384 + 2·4096) + 50,432·4096 + 4096 = 6,649,286,656.
  EXPECT_DOUBLE_EQ(count_params(m).total, 6649286656);
  json j = fixture_json("mpt-7b.json");
  j["attn_config"]["attn_type"] = "multiquery_attention";
  EXPECT_EQ(model_from_hf_config(j, "config.json").kv_heads, 1);
  j["attn_config"]["attn_type"] = "sparse";
  EXPECT_NE(hf_error(j).find("attn_type"), std::string::npos);
}

TEST(HfConfig, NemotronSquaredReluAndPartialRotary) {
  const ModelSpec m = load_hf_config_file(fixture_path("minitron-8b.json"));
  EXPECT_EQ(m.mlp, MlpKind::relu2);
  EXPECT_DOUBLE_EQ(m.rotary_fraction, 0.5);
  EXPECT_EQ(m.norm, NormKind::layernorm);
  // Two matrices, not three: 2·4096·16384.
  EXPECT_DOUBLE_EQ(count_params(m).dense_layer.mlp, 2.0 * 4096 * 16384);
  json j = fixture_json("minitron-8b.json");
  j["partial_rotary_factor"] = 1.5;
  EXPECT_NE(hf_error(j).find("partial_rotary_factor"), std::string::npos);
}

// ---- Bad input ----------------------------------------------------------------------------

TEST(HfConfig, MissingFieldNamesFieldFileAndModelType) {
  json j = fixture_json("llama-3.1-8b.json");
  j.erase("num_attention_heads");
  EXPECT_EQ(hf_error(j), "config.json: missing field 'num_attention_heads' (required for model_type llama)");
  json g = fixture_json("gpt2.json");
  g.erase("n_embd");
  EXPECT_EQ(hf_error(g), "config.json: missing field 'n_embd' (required for model_type gpt2)");
  json d = fixture_json("deepseek-v3.json");
  d.erase("kv_lora_rank");
  EXPECT_NE(hf_error(d).find("missing field 'kv_lora_rank'"), std::string::npos) << hf_error(d);
  json o = fixture_json("gpt-oss-20b.json");
  o.erase("sliding_window");
  EXPECT_NE(hf_error(o).find("missing field 'sliding_window'"), std::string::npos) << hf_error(o);
}

TEST(HfConfig, UnsupportedModelTypeListsTheSupportedOnes) {
  json j = fixture_json("llama-3.1-8b.json");
  j["model_type"] = "mamba2";  // a pure state-space model: not read (hybrids are: jamba, nemotron_h)
  const std::string msg = hf_error(j);
  EXPECT_NE(msg.find("unsupported model_type 'mamba2'"), std::string::npos) << msg;
  for (const auto& type : supported_hf_model_types()) EXPECT_NE(msg.find(type), std::string::npos) << type;
  j.erase("model_type");
  EXPECT_NE(hf_error(j).find("missing field 'model_type'"), std::string::npos);
  EXPECT_NE(hf_error(json::array()).find("expected a JSON object"), std::string::npos);
}

TEST(HfConfig, WrongTypesAndNonPositiveSizesNameTheField) {
  const json base = fixture_json("llama-3.1-8b.json");
  auto with = [&](const char* key, json value) {
    json j = base;
    j[key] = std::move(value);
    return hf_error(j);
  };
  EXPECT_NE(with("hidden_size", "4096").find("field 'hidden_size': expected an integer"), std::string::npos);
  EXPECT_NE(with("hidden_size", 0).find("field 'hidden_size': must be a positive integer"), std::string::npos);
  EXPECT_NE(with("hidden_size", -4096).find("field 'hidden_size'"), std::string::npos);
  EXPECT_NE(with("hidden_size", 4096.5).find("expected an integer"), std::string::npos);
  EXPECT_NE(with("vocab_size", 1e300).find("implausibly large"), std::string::npos);
  EXPECT_NE(with("tie_word_embeddings", 1).find("expected true or false"), std::string::npos);
  EXPECT_NE(with("num_key_value_heads", 7).find("num_key_value_heads"), std::string::npos);
  EXPECT_NE(with("hidden_size", 4095).find("not divisible"), std::string::npos);
  EXPECT_EQ(with("hidden_size", 4096.0), "");  // an integral float is an integer
  EXPECT_NE(with("layer_types", json::array({"full_attention"})).find("layer_types"), std::string::npos);
  json moe = fixture_json("mixtral-8x7b-v0.1.json");
  moe["num_experts_per_tok"] = 9;
  EXPECT_NE(hf_error(moe).find("exceeds the 8 experts"), std::string::npos);
}

TEST(HfConfig, StrictModeCatchesMisspelledKeys) {
  json j = fixture_json("llama-3.1-8b.json");
  j["tie_word_embedding"] = true;  // one letter short
  j.erase("tie_word_embeddings");
  EXPECT_EQ(hf_error(j, false), "");  // a config.json from the Hub is read as transformers would
  EXPECT_NE(hf_error(j, true).find("did you mean 'tie_word_embeddings'"), std::string::npos) << hf_error(j, true);
}

TEST(HfConfig, FileErrors) {
  auto dir = testing::scratch_dir("hf-config");
  testing::write_file(dir / "bad.json", "{\"model_type\": \"llama\",");
  try {
    load_hf_config_file((dir / "bad.json").string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: not valid JSON"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_hf_config_file((dir / "absent.json").string()), Error);
  // A number beyond double's range is nlohmann's out_of_range, not a parse error: still an Error.
  testing::write_file(dir / "huge.json", "{\"model_type\": \"llama\", \"hidden_size\": 1e999}");
  try {
    load_hf_config_file((dir / "huge.json").string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("huge.json: not valid JSON"), std::string::npos) << e.what();
  }
  // A file called config.json takes its folder's name.
  std::filesystem::create_directories(dir / "My-Model");
  std::filesystem::copy_file(fixture_path("gpt2.json"), dir / "My-Model" / "config.json");
  EXPECT_EQ(load_hf_config_file((dir / "My-Model" / "config.json").string()).id, "My-Model");
}

// ---- The zoo's [config] tables -------------------------------------------------------------

TEST(HfConfig, ZooConfigMatchesTheFixtureOfTheSameModel) {
  CatalogOptions options;
  options.embedded = false;
  options.user_paths = {testing::source_dir() + "/data/models"};
  const Catalog zoo = load_catalog(options);
  const std::pair<const char*, const char*> pairs[] = {
      {"llama3.1-8b", "llama-3.1-8b.json"},    {"mixtral-8x7b", "mixtral-8x7b-v0.1.json"},
      {"deepseek-v3", "deepseek-v3.json"},     {"gpt2", "gpt2.json"},
      {"gpt-oss-20b", "gpt-oss-20b.json"},     {"mpt-7b", "mpt-7b.json"},
      {"qwen3-30b-a3b", "qwen3-30b-a3b.json"}, {"mistral-7b", "mistral-7b-v0.1.json"}};
  for (const auto& [id, file] : pairs) {
    const ParamCounts a = count_params(zoo.model(id));
    const ParamCounts b = count_params(load_hf_config_file(fixture_path(file)));
    EXPECT_DOUBLE_EQ(a.total, b.total) << id;
    EXPECT_DOUBLE_EQ(a.active, b.active) << id;
    EXPECT_DOUBLE_EQ(kv_cache_bytes(zoo.model(id), 10000, Precision::bf16),
                     kv_cache_bytes(load_hf_config_file(fixture_path(file)), 10000, Precision::bf16))
        << id;
  }
}

TEST(HfConfig, ZooErrorsNameTheFileAndTheConfigTable) {
  Catalog c;
  const std::string text = R"(kind = "model"
id = "tiny"
name = "Tiny"
source = "test"
retrieved = "2026-11-22"

[config]
model_type = "llama"
hidden_size = 64
num_hidden_layers = 2
intermediate_size = 128
vocab_size = 100
)";
  try {
    load_catalog_text(c, text, "tiny.toml", false);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "tiny.toml:7 [config]: missing field 'num_attention_heads' (required for model_type llama)");
  }
  const std::string typo = text + "num_attention_heads = 4\nnum_key_value_head = 2\n";
  try {
    load_catalog_text(c, typo, "tiny.toml", false);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'num_key_value_heads'"), std::string::npos) << e.what();
  }
  load_catalog_text(c, text + "num_attention_heads = 4\n", "tiny.toml", false);
  ASSERT_EQ(c.models.size(), 1u);
  EXPECT_EQ(c.models[0].family, "llama");
  EXPECT_EQ(c.models[0].head_dim, 16);
}

TEST(HfConfig, EveryModelRefInTheSharedRunFilesResolves) {
  // The distinct model_ref values of shared/data/training-runs.csv and inference-runs.csv
  // (2026-11-22), which `gpuplan validate` will look up.
  CatalogOptions options;
  options.embedded = false;
  options.user_paths = {testing::source_dir() + "/data/models"};
  const Catalog zoo = load_catalog(options);
  for (const char* ref :
       {"deepseek-v3", "gpt-oss-120b", "llama2-13b", "llama2-70b", "llama3-70b", "llama3-8b", "llama3.1-405b",
        "llama3.1-70b", "llama3.1-8b", "mixtral-8x7b", "qwen3-235b-a22b", "qwen3-30b-a3b"}) {
    EXPECT_NE(zoo.find_model(ref), nullptr) << ref;
  }
  // And the names of the Megatron GPT rows.
  for (const char* name : {"GPT-22B", "GPT3-175B", "GPT-530B", "GPT-1T", "gpt-3"}) {
    EXPECT_NE(zoo.find_model(name), nullptr) << name;
  }
}

// ---- Random mutations ----------------------------------------------------------------------

// Replaces, deletes or nests values at random, thousands of times: the reader must either
// throw gpuplan::Error or return a model whose every derived figure is finite and positive.
TEST(HfConfig, RandomMutationsNeverCrashOrYieldNonsense) {
  std::mt19937 rng(20261122);
  const std::vector<json> pool = {0,
                                  -1,
                                  1,
                                  2,
                                  3,
                                  7,
                                  64,
                                  4096,
                                  1.5,
                                  4096.0,
                                  1e30,
                                  -1e-9,
                                  std::int64_t{1} << 62,
                                  std::uint64_t{18446744073709551615u},
                                  "text",
                                  "",
                                  nullptr,
                                  true,
                                  false,
                                  json::array(),
                                  json::object(),
                                  json::array({1, 2}),
                                  json::array({"sliding_attention"}),
                                  json::array({"full_attention", "sliding_attention"}),
                                  json::object({{"alibi", true}}),
                                  "llama",
                                  "deepseek_v3",
                                  "gpt_oss",
                                  "mpt"};
  std::vector<json> bases;
  for (const auto& file : kFixtures) bases.push_back(fixture_json(file));
  int accepted = 0;
  int rejected = 0;
  for (int iter = 0; iter < 6000; ++iter) {
    json j = bases[static_cast<std::size_t>(iter) % bases.size()];
    const int mutations = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < mutations; ++k) {
      std::vector<std::string> keys;
      for (const auto& [key, value] : j.items()) keys.push_back(key);
      if (keys.empty()) break;
      const std::string& key = keys[rng() % keys.size()];
      const unsigned op = rng() % 4;
      if (op == 0) {
        j.erase(key);
      } else if (op == 1 && j[key].is_object() && !j[key].empty()) {
        auto& inner = j[key];
        std::vector<std::string> inner_keys;
        for (const auto& [ik, iv] : inner.items()) inner_keys.push_back(ik);
        inner[inner_keys[rng() % inner_keys.size()]] = pool[rng() % pool.size()];
      } else if (op == 2 && j[key].is_number()) {
        j[key] = j[key].get<double>() * (rng() % 2 ? 2 : -1);  // scale or negate a real value
      } else {
        j[key] = pool[rng() % pool.size()];
      }
    }
    ModelSpec m;
    try {
      m = model_from_hf_config(j, "fuzz.json", (iter % 2) == 0);
    } catch (const Error&) {
      ++rejected;
      continue;
    } catch (const std::exception& e) {
      FAIL() << "non-Error exception " << e.what() << " for " << j.dump();
    }
    ++accepted;
    ASSERT_GT(m.layers, 0) << j.dump();
    ASSERT_GT(m.hidden, 0) << j.dump();
    ASSERT_GT(m.heads, 0) << j.dump();
    ASSERT_GT(m.kv_heads, 0) << j.dump();
    ASSERT_GT(m.head_dim, 0) << j.dump();
    ASSERT_GT(m.vocab, 0) << j.dump();
    const ParamCounts c = count_params(m);
    ASSERT_TRUE(std::isfinite(c.total) && c.total > 0) << j.dump();
    ASSERT_TRUE(std::isfinite(c.active) && c.active > 0 && c.active <= c.total) << j.dump();
    for (std::int64_t s : {1, 4096}) {
      const double f = forward_flops_per_token(m, s);
      const double kv = kv_cache_bytes(m, s, Precision::bf16);
      ASSERT_TRUE(std::isfinite(f) && f > 0) << j.dump();
      ASSERT_TRUE(std::isfinite(kv) && kv > 0) << j.dump();
    }
    ASSERT_TRUE(std::isfinite(kv_cache_bytes_per_token(m, Precision::fp8))) << j.dump();
  }
  // Both paths were exercised.
  EXPECT_GT(accepted, 500);
  EXPECT_GT(rejected, 500);
}

}  // namespace
}  // namespace gpuplan
