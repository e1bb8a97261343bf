// gpuplan-bench's default sweep: the zoo's layer GEMM shapes, the layer and step shapes and
// their FLOP counts (the training model's convention, derived by hand below), and --layer and
// --step parsing.
#include <gtest/gtest.h>

#include <algorithm>

#include "calibration/layer_shape.h"
#include "bench_support/measure.h"
#include "calibration/step_shape.h"
#include "catalog/catalog.h"
#include "core/error.h"

namespace gpuplan {
namespace {

bool has(const std::vector<GemmShape>& gemms, Precision p, int m, int n, int k) {
  return std::any_of(gemms.begin(), gemms.end(), [&](const GemmShape& g) {
    return g.kernel == "cublaslt" && g.precision == p && g.m == m && g.n == n && g.k == k;
  });
}

TEST(BenchSweep, Llama8bLayerGemmsAreItsFourProjections) {
  // hidden 4096, 32 query and 8 KV heads of 128, FFN 14336: QKV n = (32 + 2·8)·128 = 6144;
  // attention output 4096 × 4096; SwiGLU gate+up fused, n = 2·14336; down k = 14336.
  const auto shapes = model_gemm_shapes(default_catalog().model("llama3.1-8b"), 8192, Precision::bf16);
  ASSERT_EQ(shapes.size(), 4u);
  EXPECT_TRUE(has(shapes, Precision::bf16, 8192, 6144, 4096));
  EXPECT_TRUE(has(shapes, Precision::bf16, 8192, 4096, 4096));
  EXPECT_TRUE(has(shapes, Precision::bf16, 8192, 28672, 4096));
  EXPECT_TRUE(has(shapes, Precision::bf16, 8192, 4096, 14336));
}

TEST(BenchSweep, MixtralExpertGemmsRunAtTheirShareOfTheTokens) {
  // 8 experts, top-2: each expert sees 8192·2/8 = 2048 rows; expert FFN 14336; the router
  // (n = 8) is left out.
  const auto shapes = model_gemm_shapes(default_catalog().model("mixtral-8x7b"), 8192, Precision::fp8);
  EXPECT_TRUE(has(shapes, Precision::fp8, 2048, 28672, 4096));
  EXPECT_TRUE(has(shapes, Precision::fp8, 2048, 4096, 14336));
  EXPECT_TRUE(std::none_of(shapes.begin(), shapes.end(), [](const GemmShape& g) { return g.n == 8; }));
}

TEST(BenchSweep, FullSweepCoversEveryPrecisionAndSeveralModels) {
  const SweepOptions s = default_sweep(false, default_catalog());
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp16, Precision::fp8}) {
    EXPECT_TRUE(has(s.gemms, p, 16384, 16384, 16384)) << precision_name(p);
    EXPECT_TRUE(has(s.gemms, p, 256, 256, 256)) << precision_name(p);
  }
  // Llama-3.1-70B (hidden 8192, FFN 28672) in bf16 and fp8, beside the 8B.
  EXPECT_TRUE(has(s.gemms, Precision::bf16, 8192, 57344, 8192));
  EXPECT_TRUE(has(s.gemms, Precision::fp8, 8192, 8192, 28672));
  EXPECT_TRUE(has(s.gemms, Precision::bf16, 8192, 28672, 4096));
  EXPECT_DOUBLE_EQ(s.memory_bytes.back(), 4096.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(s.host_bytes.back(), 1024.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(s.collective_bytes.front(), 64.0 * 1024);
  ASSERT_EQ(s.layers.size(), 2u);
  EXPECT_EQ(s.layers[0].name, "llama3.1-8b");
  EXPECT_EQ(s.layers[0].ffn, 14336);
  EXPECT_EQ(s.layers[0].seq, 2048);
  EXPECT_EQ(s.layers[1].hidden, 2048);
  EXPECT_EQ(layer_shape_problem(s.layer_check), "");
  for (const LayerShape& l : s.layers) EXPECT_EQ(layer_shape_problem(l), "") << l.name;
  // The 1B-class step: Llama-3.2-1B's shape with its own LM head.
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].layers, 16);
  EXPECT_EQ(s.steps[0].vocab, 128256);
  EXPECT_EQ(s.steps[0].layer.hidden, 2048);
  EXPECT_EQ(s.steps[0].layer.seq, 2048);
  EXPECT_EQ(step_shape_problem(s.steps[0]), "");
  EXPECT_EQ(step_shape_problem(s.step_check), "");
  EXPECT_EQ(s.step_check.layers, 2);
  EXPECT_EQ(s.step_check.vocab, 512);
}

TEST(BenchSweep, QuickSweepIsASmallSubset) {
  const SweepOptions quick = default_sweep(true, default_catalog());
  const SweepOptions full = default_sweep(false, default_catalog());
  EXPECT_LT(quick.gemms.size() * 3, full.gemms.size());
  EXPECT_LT(quick.runs, full.runs);
  ASSERT_EQ(quick.layers.size(), 1u);
  EXPECT_EQ(quick.layers[0].seq, 512);
  ASSERT_EQ(quick.steps.size(), 1u);
  EXPECT_EQ(quick.steps[0].layers, 2);
  EXPECT_EQ(quick.steps[0].layer.hidden, 2048);
  EXPECT_EQ(quick.steps[0].layer.seq, 512);
  EXPECT_EQ(quick.steps[0].vocab, 32000);
}

TEST(BenchSweep, StepFlopsFollowTheTrainingConvention) {
  // 1B-class, 2048 tokens. Per layer, matmul weights 2048·(2048 + 2·512) + 2048·2048 +
  // 3·2048·8192 = 60,817,408 (head_dim 64: K and V are 512 wide); 16 layers = 973,078,528;
  // the head 128256·2048 = 262,668,288; N = 1,235,746,816 (the embedding gather is no matmul).
  // Causal attention per token: 16·2·32·(64 + 64)·(2048 + 1)/2 = 134,283,264.
  // Train FLOPs = tokens·3·(2N + attention) = 2048·7,817,330,688.
  const StepShape s = default_sweep(false, default_catalog()).steps[0];
  EXPECT_DOUBLE_EQ(step_train_flops(s), 2048.0 * 7817330688.0);
  // The same as 16 layers plus the head's 6·V·H per token.
  EXPECT_DOUBLE_EQ(step_train_flops(s), 16 * layer_train_flops(s.layer) + 6.0 * 128256 * 2048 * 2048);
  const ModelSpec m = step_model(s);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(m.layers, 16);
  EXPECT_EQ(m.vocab, 128256);
  EXPECT_EQ(m.head_dim, 64);
  EXPECT_EQ(m.id, "1b-class");
}

TEST(BenchSweep, ParsesStepFlag) {
  const StepShape s = parse_step_shape("4,1024,16,4,4096,32000,512,2");
  EXPECT_EQ(s.layers, 4);
  EXPECT_EQ(s.layer.hidden, 1024);
  EXPECT_EQ(s.layer.heads, 16);
  EXPECT_EQ(s.layer.kv_heads, 4);
  EXPECT_EQ(s.layer.ffn, 4096);
  EXPECT_EQ(s.vocab, 32000);
  EXPECT_EQ(s.layer.seq, 512);
  EXPECT_EQ(s.layer.batch, 2);
  EXPECT_EQ(s.name(), "custom-step-4,1024,16,4,4096,32000,512,2");
  auto error_of = [](const char* text) {
    try {
      parse_step_shape(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("2048,16,4,8192,1024,2").find("--step '2048,16,4,8192,1024,2': want eight numbers"),
            std::string::npos);
  EXPECT_NE(error_of("4,1024,16,4,4096,32000,512,x").find("'x' is not a whole number"), std::string::npos);
  EXPECT_NE(error_of("0,1024,16,4,4096,32000,512,1").find("layers (0) must be at least 1"), std::string::npos);
  EXPECT_NE(error_of("4,1024,16,4,4096,32001,512,1").find("vocab (32001) must be a positive multiple of 16"),
            std::string::npos);
  EXPECT_NE(error_of("4,1024,16,3,4096,32000,512,1").find("kv_heads (3) must divide heads (16)"), std::string::npos);
}

TEST(BenchSweep, LayerFlopsFollowTheTrainingConvention) {
  // Llama-3-8B layer, 2048 tokens. Matmul weights N = 4096·(4096 + 2·1024 + 4096) + 3·4096·14336
  // = 218,103,808. Causal attention per token: 2·32·(128 + 128)·(2048 + 1)/2 = 16,785,408.
  // Train FLOPs = tokens·(6N + 3·attention) = 2048·1,358,979,072.
  const LayerShape s = layer_shape_of(default_catalog().model("llama3.1-8b"), 2048, 1);
  EXPECT_DOUBLE_EQ(layer_train_flops(s), 2048.0 * 1358979072.0);
  LayerShape two = s;
  two.batch = 2;
  EXPECT_DOUBLE_EQ(layer_train_flops(two), 2 * layer_train_flops(s));  // attention is per sequence
}

TEST(BenchSweep, LayerShapesTheBenchCannotRunAreRefused) {
  EXPECT_THROW(layer_shape_of(default_catalog().model("mixtral-8x7b"), 2048, 1), Error);
  EXPECT_NE(layer_shape_problem({"x", 4096, 32, 5, 14336, 2048, 1}).find("kv_heads (5) must divide heads"),
            std::string::npos);
  EXPECT_NE(layer_shape_problem({"x", 4096, 32, 8, 14336, 1000, 1}).find("multiples of 16"), std::string::npos);
}

TEST(BenchSweep, ParsesLayerFlag) {
  const LayerShape s = parse_layer_shape("2048,16,4,8192,1024,2");
  EXPECT_EQ(s.hidden, 2048);
  EXPECT_EQ(s.heads, 16);
  EXPECT_EQ(s.kv_heads, 4);
  EXPECT_EQ(s.ffn, 8192);
  EXPECT_EQ(s.seq, 1024);
  EXPECT_EQ(s.batch, 2);
  EXPECT_EQ(s.head_dim(), 128);
  auto error_of = [](const char* text) {
    try {
      parse_layer_shape(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("2048,16,4").find("want six numbers"), std::string::npos);
  EXPECT_NE(error_of("2048,16,4,8192,1024,x").find("'x' is not a whole number"), std::string::npos);
  EXPECT_NE(error_of("2048,16,3,8192,1024,1").find("kv_heads (3) must divide heads (16)"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan
