// Parameter counts, FLOPs, weight and KV-cache bytes: each formula against a hand derivation,
// the published totals, and properties over the zoo.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "test_util.h"
#include "workload/hf_config.h"
#include "workload/params.h"

namespace gpuplan {
namespace {

ModelSpec hf_fixture(const std::string& file) {
  return load_hf_config_file(testing::source_dir() + "/tests/workload/fixtures/" + file);
}

// The zoo straight from data/models, independent of the rest of the default catalog.
const Catalog& zoo() {
  static const Catalog catalog = [] {
    CatalogOptions options;
    options.embedded = false;
    options.user_paths = {testing::source_dir() + "/data/models"};
    return load_catalog(options);
  }();
  return catalog;
}

double total_of(const std::string& id) { return count_params(zoo().model(id)).total; }
double active_of(const std::string& id) { return count_params(zoo().model(id)).active; }

void expect_within(double computed, double published, double tolerance, const std::string& what) {
  EXPECT_NEAR(computed / published, 1.0, tolerance) << what << ": computed " << computed << ", published " << published;
}

// ---- Hand derivations ---------------------------------------------------------------------

TEST(Params, Llama31_8bByHand) {
  const ModelSpec m = hf_fixture("llama-3.1-8b.json");
  const ParamCounts c = count_params(m);
  // Attention: Q 4096·4096 + K,V 2·4096·(8·128) + O 4096·4096 = 16,777,216·2 + 8,388,608 = 41,943,040.
  EXPECT_DOUBLE_EQ(c.dense_layer.attention, 41943040);
  // SwiGLU: 3·4096·14336 = 176,160,768.
  EXPECT_DOUBLE_EQ(c.dense_layer.mlp, 176160768);
  // Two RMSNorms of 4096.
  EXPECT_DOUBLE_EQ(c.dense_layer.norms, 8192);
  // Embedding and untied head: 2·128,256·4096 = 1,050,673,152.
  EXPECT_DOUBLE_EQ(c.embedding, 1050673152);
  // 32·(41,943,040 + 176,160,768 + 8,192) + 1,050,673,152 + 4,096 (final norm) = 8,030,261,248.
  EXPECT_DOUBLE_EQ(c.total, 8030261248);
  EXPECT_DOUBLE_EQ(c.active, c.total);
  // Matmul weights: 32·218,103,808 + the head 525,336,576 = 7,504,658,432.
  EXPECT_DOUBLE_EQ(c.matmul_active, 7504658432);
}

TEST(Params, Llama31_8bKvCacheByHand) {
  const ModelSpec m = hf_fixture("llama-3.1-8b.json");
  // 2 (K and V) · 32 layers · 8 KV heads · 128 · 2 bytes = 131,072 bytes per token in bf16.
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(m, Precision::bf16), 131072);
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(m, Precision::fp8), 65536);
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token_per_layer(m, Precision::bf16), 4096);
  // One 8,192-token sequence: 131,072 · 8,192 = 1,073,741,824 bytes (1 GiB).
  EXPECT_DOUBLE_EQ(kv_cache_bytes(m, 8192, Precision::bf16), 1073741824);
}

TEST(Params, Llama31_8bFlopsByHand) {
  const ModelSpec m = hf_fixture("llama-3.1-8b.json");
  // Attention at s = 4096, causal: per layer 2·32 heads·(128 + 128)·(4096+1)/2 = 33,562,624;
  // ×32 layers = 1,074,003,968.
  EXPECT_DOUBLE_EQ(attention_flops_per_token(m, 4096), 1074003968);
  // Non-causal: every query sees 4096 keys: 2·32·256·4096·32 = 2,147,483,648.
  EXPECT_DOUBLE_EQ(attention_flops_per_token(m, 4096, false), 2147483648);
  // Forward: 2·7,504,658,432 + 1,074,003,968 = 16,083,320,832.
  EXPECT_DOUBLE_EQ(forward_flops_per_token(m, 4096), 16083320832);
  // Training: 3 × forward = 48,249,962,496 (≈ 6N with N = 8.03B: 48.2 G, plus attention).
  EXPECT_DOUBLE_EQ(train_flops_per_token(m, 4096), 48249962496);
  // Decode at context 4096: each layer attends to all 4096 keys: 2·7,504,658,432 + 2,147,483,648.
  EXPECT_DOUBLE_EQ(decode_flops_per_token(m, 4096), 2 * 7504658432.0 + 2147483648.0);
}

// attention_flops_per_token adds one term per layer; for models whose every layer attends over
// the whole span it multiplies where that is provably the same sum (repeated_sum). The term is
// the one-layer model's; the sum must be the loop's to the bit, at lengths whose term has few
// significant bits (powers of two) and many (odd, prime), causal or not, for every model.
TEST(Params, AttentionFlopsAreTheLayerLoopsSumToTheBit) {
  int checked = 0;
  for (const ModelSpec& m : zoo().models) {
    if (m.sliding_window > 0 || !m.layer_mixer.empty() || m.layers < 1) continue;
    ModelSpec one = m;
    one.layers = 1;
    for (std::int64_t s : {1, 2, 3, 7, 1000, 2047, 4095, 4096, 8191, 8192, 32768, 131071, 131072, 1000003}) {
      for (bool causal : {true, false}) {
        const double term = attention_flops_per_token(one, s, causal);
        double loop = 0;
        for (std::int64_t l = 0; l < m.layers; ++l) loop += term;
        const double got = attention_flops_per_token(m, s, causal);
        EXPECT_EQ(std::memcmp(&got, &loop, sizeof got), 0) << m.id << " s=" << s << " causal=" << causal;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(Params, WeightBytesPerPrecision) {
  const ModelSpec m = hf_fixture("llama-3.1-8b.json");
  // 8,030,261,248 parameters × 2 / 1 / 0.5 bytes.
  EXPECT_DOUBLE_EQ(weight_bytes(m, Precision::bf16), 16060522496);
  EXPECT_DOUBLE_EQ(weight_bytes(m, Precision::fp16), 16060522496);
  EXPECT_DOUBLE_EQ(weight_bytes(m, Precision::fp8), 8030261248);
  EXPECT_DOUBLE_EQ(weight_bytes(m, Precision::int8), 8030261248);
  EXPECT_DOUBLE_EQ(weight_bytes(m, Precision::int4), 4015130624);
  EXPECT_DOUBLE_EQ(weight_bytes(m, Precision::fp4), 4015130624);
}

TEST(Params, Gpt2ByHand) {
  const ModelSpec m = hf_fixture("gpt2.json");
  const ParamCounts c = count_params(m);
  // Per layer: attention c_attn 768·2304 + c_proj 768·768 = 2,359,296; biases 2304 + 768 (attn)
  // + 3072 + 768 (MLP) = 6,912; MLP 2·768·3072 = 4,718,592; two LayerNorms 2·2·768 = 3,072.
  EXPECT_DOUBLE_EQ(c.dense_layer.attention, 2359296);
  EXPECT_DOUBLE_EQ(c.dense_layer.mlp, 4718592);
  EXPECT_DOUBLE_EQ(c.dense_layer.biases, 6912);
  EXPECT_DOUBLE_EQ(c.dense_layer.norms, 3072);
  // 12·7,087,872 + wte 50,257·768 (38,597,376; tied head) + wpe 1024·768 (786,432) + ln_f 1,536
  // = 124,439,808: the count of the released checkpoint.
  EXPECT_DOUBLE_EQ(c.output_head, 0);
  EXPECT_DOUBLE_EQ(c.position_embedding, 786432);
  EXPECT_DOUBLE_EQ(c.total, 124439808);
  // The tied head is still a matmul: matmul weights = 12·(2,359,296 + 4,718,592) + 38,597,376.
  EXPECT_DOUBLE_EQ(c.matmul_active, 12 * 7077888.0 + 38597376.0);
  // KV: 2·12·12·64·2 = 36,864 bytes per token.
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(m, Precision::bf16), 36864);
}

TEST(Params, MixtralByHand) {
  const ModelSpec m = hf_fixture("mixtral-8x7b-v0.1.json");
  const ParamCounts c = count_params(m);
  // Per layer: attention 41,943,040; 8 experts × 3·4096·14336 = 1,409,286,144 (2 active:
  // 352,321,536); router 8·4096 = 32,768; norms 8,192.
  EXPECT_EQ(c.moe_layers, 32);
  EXPECT_DOUBLE_EQ(c.moe_layer.experts, 1409286144);
  EXPECT_DOUBLE_EQ(c.moe_layer.experts_active, 352321536);
  EXPECT_DOUBLE_EQ(c.moe_layer.router, 32768);
  // Total: 32·1,451,270,144 + 2·32,000·4096 + 4096 = 46,702,792,704.
  EXPECT_DOUBLE_EQ(c.total, 46702792704);
  // Active: 32·394,305,536 + 262,144,000 + 4096 = 12,879,925,248.
  EXPECT_DOUBLE_EQ(c.active, 12879925248);
}

TEST(Params, DeepSeekV3ByHand) {
  const ModelSpec m = hf_fixture("deepseek-v3.json");
  const ParamCounts c = count_params(m);
  // MLA per layer: W_DQ 7168·1536 = 11,010,048; W_UQ 1536·128·192 = 37,748,736;
  // W_DKV+W_KR 7168·576 = 4,128,768; W_UK+W_UV 512·128·256 = 16,777,216; W_O 128·128·7168 =
  // 117,440,512; sum 187,105,280 (+ latent norms 1536 + 512).
  EXPECT_DOUBLE_EQ(c.dense_layer.attention, 187105280);
  EXPECT_DOUBLE_EQ(c.moe_layer.attention, 187105280);
  // Layers 0-2 dense (first_k_dense_replace = 3), 58 MoE.
  EXPECT_EQ(c.dense_layers, 3);
  EXPECT_EQ(c.moe_layers, 58);
  // Expert 3·7168·2048 = 44,040,192: 256 routed = 11,274,289,152; router 256·7168 = 1,835,008
  // plus the 256-entry correction bias.
  EXPECT_DOUBLE_EQ(c.moe_layer.experts, 11274289152);
  EXPECT_DOUBLE_EQ(c.moe_layer.shared_experts, 44040192);
  EXPECT_DOUBLE_EQ(c.moe_layer.router, 1835008);
  EXPECT_DOUBLE_EQ(c.moe_layer.biases, 256);
  // Sum: 61·187,107,328 + 61·14,336 + 3·396,361,728 + 58·11,320,164,608 + 2·926,679,040 + 7,168
  // = 671,026,419,200.
  EXPECT_DOUBLE_EQ(c.total, 671026419200);
  // KV (MLA): 61 layers · (512 + 64) · 2 bytes = 70,272 bytes per token.
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(m, Precision::bf16), 70272);
  // MTP: one more MoE block (11.51B) + a 2h·h projection + 3 norms = 11.6B; with the
  // checkpoint's own copies of embedding and head (1.85B) the Hugging Face total is 685B.
  EXPECT_NEAR((c.total + c.mtp + c.embedding) / 1e9, 685, 1.0);
}

TEST(Params, SlidingWindowCapsKvAndAttention) {
  const ModelSpec m = hf_fixture("gpt-oss-20b.json");
  // 2·8 KV heads·64·2 bytes = 2,048 bytes per layer per token; 24 layers, 12 of them with a
  // 128-token window.
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token_per_layer(m, Precision::bf16), 2048);
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(m, Precision::bf16), 24 * 2048);
  // At 8,192 tokens: 12·2,048·8,192 + 12·2,048·128 = 201,326,592 + 3,145,728.
  EXPECT_DOUBLE_EQ(kv_cache_bytes(m, 8192, Precision::bf16), 204472320);
  // Below the window every layer holds everything.
  EXPECT_DOUBLE_EQ(kv_cache_bytes(m, 100, Precision::bf16), 24 * 2048 * 100.0);
  // Attention keys per query for a 128 window at s = 256: (128·129/2 + 128·128)/256 = 96.25;
  // full layers (256+1)/2 = 128.5. Per key 2·64·(64+64) = 16,384 FLOPs.
  EXPECT_DOUBLE_EQ(attention_flops_per_token(m, 256), 16384.0 * (12 * 96.25 + 12 * 128.5));
}

TEST(Params, MistralWindowOnEveryLayer) {
  const ModelSpec m = hf_fixture("mistral-7b-v0.1.json");
  // 131,072 bytes per token, but no layer keeps more than 4,096 tokens.
  EXPECT_DOUBLE_EQ(kv_cache_bytes(m, 4096, Precision::bf16), 131072.0 * 4096);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(m, 32768, Precision::bf16), 131072.0 * 4096);
}

TEST(Params, MegatronFormulaForNonCausalTrainingFlops) {
  // Narayanan et al. 2021 / Korthikanti et al. 2022 count a training step (no recompute, full
  // s² attention) as 72·l·h²·(1 + s/6h + V/12lh) FLOPs per token. gpuplan's terms: 6 × matmul
  // weights (12lh² per layer + the Vh head) + 3 × non-causal attention (4·l·s·h).
  const ModelSpec& m = zoo().model("megatron-gpt-530b");
  const double l = 105, h = 20480, s = 2048, v = 51200;
  const double megatron = 72 * l * h * h * (1 + s / (6 * h) + v / (12 * l * h));
  const double ours = 6 * count_params(m).matmul_active + 3 * attention_flops_per_token(m, 2048, false);
  EXPECT_NEAR(ours / megatron, 1.0, 1e-12);
}

// ---- Published totals --------------------------------------------------------------------

TEST(Params, PublishedTotalsWithinOnePercent) {
  expect_within(total_of("llama3.1-8b"), 8.03e9, 0.01, "Llama 3.1 8B");
  expect_within(total_of("llama3.1-70b"), 70.6e9, 0.01, "Llama 3.1 70B");
  expect_within(total_of("llama3.1-405b"), 405.9e9, 0.01, "Llama 3.1 405B");
  expect_within(total_of("llama2-7b"), 6.74e9, 0.01, "Llama 2 7B");
  expect_within(total_of("gpt3-175b"), 175e9, 0.01, "GPT-3 175B");
  expect_within(total_of("gpt2"), 124e6, 0.01, "GPT-2 124M (tied)");
  expect_within(total_of("mixtral-8x7b"), 46.7e9, 0.01, "Mixtral 8x7B");
  expect_within(total_of("mixtral-8x22b"), 141e9, 0.01, "Mixtral 8x22B");
  expect_within(total_of("deepseek-v3"), 671e9, 0.01, "DeepSeek-V3 (without MTP)");
  expect_within(total_of("qwen3-32b"), 32.8e9, 0.01, "Qwen3 32B");
  expect_within(total_of("qwen3-30b-a3b"), 30.5e9, 0.01, "Qwen3 30B-A3B");
  expect_within(total_of("qwen3-235b-a22b"), 235e9, 0.01, "Qwen3 235B-A22B");
  expect_within(total_of("gpt-oss-120b"), 116.8e9, 0.01, "gpt-oss-120b");
  expect_within(total_of("gpt-oss-20b"), 20.9e9, 0.01, "gpt-oss-20b");
  expect_within(total_of("mpt-7b"), 6.7e9, 0.01, "MPT-7B");
  expect_within(total_of("mpt-30b"), 29.95e9, 0.01, "MPT-30B");
  expect_within(total_of("megatron-gpt-1t"), 1008.0e9, 0.01, "Megatron GPT 1T");
  expect_within(total_of("nemotron-4-340b"), 341.0e9, 0.01, "Nemotron-4 340B (9.4B + 331.6B)");
}

TEST(Params, PublishedActiveCounts) {
  // Mistral and Qwen count the input-embedding table in the active figure.
  expect_within(active_of("mixtral-8x7b"), 12.9e9, 0.01, "Mixtral 8x7B active");
  expect_within(active_of("mixtral-8x22b"), 39e9, 0.01, "Mixtral 8x22B active");
  expect_within(active_of("qwen3-235b-a22b"), 22e9, 0.01, "Qwen3 235B-A22B active");
  // OpenAI's model card leaves it out: 5.13B for gpt-oss-120b (5.71B with it).
  const ParamCounts oss = count_params(zoo().model("gpt-oss-120b"));
  expect_within(oss.active_without_input_embedding(), 5.13e9, 0.01, "gpt-oss-120b active");
  expect_within(oss.active_without_input_embedding(), 5.1e9, 0.01, "gpt-oss-120b active, 5.1B");
  // DeepSeek's "37B" is rounded to whole billions: 36.6B without the input embedding (their
  // convention, as their V2 and V2-Lite figures show), 37.6B with it. 1% cannot tell those
  // apart from 37 ± 0.5; the published precision can.
  const ParamCounts v3 = count_params(zoo().model("deepseek-v3"));
  EXPECT_NEAR(v3.active_without_input_embedding() / 1e9, 37.0, 0.5);
  // Qwen3-30B-A3B: 3.35B against "3.3B", one unit in the last published digit.
  EXPECT_NEAR(active_of("qwen3-30b-a3b") / 1e9, 3.3, 0.1);
}

// The last digit a published figure was written with: 46.7e9 → 1e8, 37e9 → 1e9.
double published_unit(double value) {
  double unit = 1;
  while (unit * 10 <= value && std::fmod(value, unit * 10) == 0) unit *= 10;
  return unit;
}

TEST(Params, EveryZooModelMatchesItsPublishedFigures) {
  for (const ModelSpec& m : zoo().models) {
    const ParamCounts c = count_params(m);
    ASSERT_GT(m.published_params, 0) << m.id << ": every zoo entry carries published_params";
    // Within 1%, or within one unit of the last digit published (names like "70B" for 68.98B
    // are not counts; the zoo records the count where one was published).
    const double tol = std::max(0.01 * m.published_params, published_unit(m.published_params));
    EXPECT_NEAR(c.total, m.published_params, tol) << m.id;
    if (m.published_active_params > 0) {
      const double active = m.published_active_excludes_input_embedding ? c.active_without_input_embedding() : c.active;
      const double atol = std::max(0.01 * m.published_active_params, published_unit(m.published_active_params));
      EXPECT_NEAR(active, m.published_active_params, atol) << m.id << " active";
    }
  }
}

// ---- Properties ---------------------------------------------------------------------------

TEST(Params, KvPerTokenGrowsWithLayers) {
  ModelSpec m = hf_fixture("llama-3.1-8b.json");
  double previous = 0;
  for (std::int64_t layers : {1, 2, 8, 32, 80, 126}) {
    m.layers = layers;
    const double kv = kv_cache_bytes_per_token(m, Precision::bf16);
    EXPECT_GT(kv, previous) << layers;
    EXPECT_DOUBLE_EQ(kv, 4096.0 * static_cast<double>(layers));  // linear: 2·8·128·2 per layer
    previous = kv;
  }
}

TEST(Params, ZooInvariants) {
  for (const ModelSpec& m : zoo().models) {
    const ParamCounts c = count_params(m);
    EXPECT_GT(c.total, 0) << m.id;
    EXPECT_LE(c.active, c.total) << m.id << ": MoE active must not exceed total";
    EXPECT_LE(c.matmul_active, c.active + c.input_embedding) << m.id;
    if (m.is_moe()) {
      EXPECT_LT(c.active, c.total) << m.id;
    } else {
      EXPECT_DOUBLE_EQ(c.active, c.total) << m.id;
    }
    EXPECT_DOUBLE_EQ(c.total, c.embedding + c.non_embedding) << m.id;
    // Attention FLOPs never fall as the sequence grows; the KV cache never shrinks.
    double flops = 0;
    double kv = 0;
    for (std::int64_t s : {1, 16, 128, 1024, 4096, 32768}) {
      const double f = attention_flops_per_token(m, s);
      const double b = kv_cache_bytes(m, s, Precision::bf16);
      EXPECT_GE(f, flops) << m.id << " s=" << s;
      EXPECT_GE(b, kv) << m.id << " s=" << s;
      EXPECT_DOUBLE_EQ(train_flops_per_token(m, s), 3 * forward_flops_per_token(m, s)) << m.id;
      flops = f;
      kv = b;
    }
    EXPECT_DOUBLE_EQ(weight_bytes(m, Precision::bf16), 2 * weight_bytes(m, Precision::fp8)) << m.id;
    EXPECT_DOUBLE_EQ(weight_bytes(m, Precision::fp8), 2 * weight_bytes(m, Precision::int4)) << m.id;
  }
}

TEST(Params, CausalIsAboutHalfOfFull) {
  const ModelSpec m = hf_fixture("qwen3-0.6b.json");
  // (s+1)/2 against s keys per query.
  EXPECT_DOUBLE_EQ(attention_flops_per_token(m, 1000) / attention_flops_per_token(m, 1000, false), 1001.0 / 2000.0);
}

// ---- Seed errata (docs/seed-errata.md) ---------------------------------------------------

// M1: the seeds' "training memory = parameters × 4" at FP16 (7B ~56 GB, 70B ~560 GB, 405B
// ~3.2 TB) is 8 bytes per parameter. Mixed-precision Adam keeps bf16 weights (2) and gradients
// (2) plus fp32 master weights and both moments (3 × 4): 16 bytes per parameter before
// activations (ZeRO, Rajbhandari et al. 2020, §3: 2Ψ + 2Ψ + KΨ with K = 12).
TEST(Params, SeedErrataMixedPrecisionAdamNeedsSixteenBytesPerParameter) {
  auto state_bytes = [](const std::string& id) {
    const ModelSpec& m = zoo().model(id);
    return 2 * weight_bytes(m, Precision::bf16) + 3 * weight_bytes(m, Precision::fp32);
  };
  EXPECT_NEAR(state_bytes("llama2-7b") / 1e9, 107.8, 0.1);       // seed: ~56 GB, "1× H100 (80GB)"
  EXPECT_NEAR(state_bytes("llama3-70b") / 1e9, 1128.9, 0.1);     // seed: ~560 GB
  EXPECT_NEAR(state_bytes("llama3.1-405b") / 1e12, 6.49, 0.01);  // seed: ~3.2 TB
  // The weights alone are what the seeds' first column says: 70.55B × 2 = 141 GB ("~140GB").
  EXPECT_NEAR(weight_bytes(zoo().model("llama3-70b"), Precision::fp16) / 1e9, 141.1, 0.1);
}

// M2: "8B params × 100B tokens: ~7-10 days on an 8× A100 cluster". Llama 3 8B at its 8,192
// training length costs 51.5 GFLOP per token per step (6 × 7.50B matmul weights + 3 × 2.15G
// causal attention): 5.15e21 FLOPs, 23.9 days at 100% of 8 × 312 TFLOP/s dense BF16, about
// 48-60 days at a realistic 40-50% MFU.
TEST(Params, SeedErrataLlama3_8bOn100BTokensTakesWeeks) {
  const ModelSpec& m = zoo().model("llama3-8b");
  EXPECT_DOUBLE_EQ(train_flops_per_token(m, 8192), 51471187968);
  const double days_at_peak = train_flops_per_token(m, 8192) * 100e9 / (8 * 312e12) / 86400;
  EXPECT_NEAR(days_at_peak, 23.9, 0.1);
}

}  // namespace
}  // namespace gpuplan
