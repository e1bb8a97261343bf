// `validate inference`: engine versions resolved from the row's cell, the held-out folds
// (constants refit without the rows they score), the per-group table, and the strict parsing
// of the serving constants it fits (issue 14).
#include <cmath>
#include <fstream>
#include <iterator>
#include <utility>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/csv.h"
#include "core/error.h"
#include "infer/memory_budget.h"
#include "test_util.h"
#include "validate/infer_fit.h"
#include "validate/infer_validation.h"

namespace gpuplan {
namespace {

using testing::cat;

const char* kHeader =
    "id,source,model_ref,gpu,num_gpus,tp,pp,ep,weight_precision,kv_precision,input_len,output_len,mode,"
    "concurrency,engine,metric,value,notes\n";

TEST(InferValidation, EngineCellMatchedWholeThenByFirstWord) {
  EXPECT_EQ(resolve_row_engine(cat(), "tensorrt-llm 1.0", "x").id, "tensorrt-llm-1.0");
  EXPECT_EQ(resolve_row_engine(cat(), "tensorrt-llm 0.17", "x").id, "tensorrt-llm");
  EXPECT_EQ(resolve_row_engine(cat(), "trtllm", "x").id, "trtllm");
  EXPECT_EQ(resolve_row_engine(cat(), "vllm 0.9.2", "x").id, "vllm");  // unknown version: the engine
  try {
    resolve_row_engine(cat(), "tgi 2.0", "f.csv:3:engine");
    ADD_FAILURE() << "tgi accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("f.csv:3:engine: unknown engine 'tgi 2.0'"), std::string::npos) << e.what();
  }
}

// The rows' benchmark launch (data/engines/trtllm.toml [benchmark]): batch waiting only at
// 1,024/1,024 and TP < 8; the client's drawn lengths (random_range_ratio 0.8) on every
// fixed-concurrency row of an engine that says so, and on no offline row.
TEST(InferValidation, BenchmarkLaunchRulesApplyWhereTheRowMatches) {
  const std::string text = std::string(kHeader) +
      "a,s,llama3.1-70b,h200-sxm,2,2,1,1,fp8,fp8,1024,1024,fixed_concurrency,4,trtllm,ttft_ms,340,\n"
      "b,s,llama3.1-70b,h200-sxm,8,8,1,1,fp8,fp8,1024,1024,fixed_concurrency,4,trtllm,ttft_ms,69,\n"
      "c,s,llama3.1-70b,h200-sxm,2,2,1,1,fp8,fp8,8192,1024,fixed_concurrency,4,trtllm,ttft_ms,678,\n"
      "d,s,llama3.1-70b,h200-sxm,2,2,1,1,fp8,fp8,1024,1024,fixed_concurrency,4,vllm,ttft_ms,121,\n"
      "e,s,llama3.1-70b,h200-sxm,2,2,1,1,fp8,fp8,1024,1024,offline_max_throughput,,tensorrt-llm 1.0,"
      "output_tokens_per_s_total,5000,\n";
  const std::vector<InferCase> cases = read_inference_cases(CsvTable::parse(text, "t.csv"), cat());
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_EQ(cases[0].launch_wait.timeout_iters, 20);
  EXPECT_DOUBLE_EQ(cases[0].launch_wait.max_tokens_ratio, 0.9);
  EXPECT_FALSE(cases[1].launch_wait.on());  // TP 8: the launch did not set it
  EXPECT_FALSE(cases[2].launch_wait.on());  // 8K prompts: nor here
  EXPECT_FALSE(cases[3].launch_wait.on());  // vLLM has no such rule
  EXPECT_TRUE(cases[0].plan.lengths_vary && cases[1].plan.lengths_vary && cases[3].plan.lengths_vary);
  EXPECT_FALSE(cases[4].plan.lengths_vary);
  // The catalog engine itself does not wait (only the rows' launch did), and the prediction of
  // the waiting row is slower than the same row without the rule by the hold.
  EXPECT_FALSE(cases[0].engine->batch_wait.on());
  InferPredictor predictor(cat());
  InferCase plain = cases[0];
  plain.launch_wait = BatchWait{};
  EXPECT_GT(predictor.predict(cases[0]), predictor.predict(plain) + 50);  // ms: ~20 decode steps of ~10 ms
}

TEST(InferValidation, ConcurrencyBands) {
  EXPECT_EQ(concurrency_band(0), "offline");
  EXPECT_EQ(concurrency_band(4), "c<=8");
  EXPECT_EQ(concurrency_band(8), "c<=8");
  EXPECT_EQ(concurrency_band(16), "c9-32");
  EXPECT_EQ(concurrency_band(64), "c>32");
}

// Two GPUs, TPOT at C = 4 on each: leaving one GPU out fits the step overhead on the other
// GPU's row only, so the fold's constants say 1 row, and the group table has one group per
// (engine, GPU, precision, band, metric).
TEST(InferValidation, LeaveOneGpuOutRefitsWithoutTheHeldOutRows) {
  const std::string text = std::string(kHeader) +
      "a,s1,llama3.1-70b,h200-sxm,4,4,1,1,fp8,fp8,1024,1024,fixed_concurrency,4,trtllm,tpot_ms,8.0,\n"
      "b,s2,llama3.1-70b,h100-sxm,4,4,1,1,fp8,fp8,1024,1024,fixed_concurrency,4,trtllm,tpot_ms,11.0,\n";
  const CsvTable csv = CsvTable::parse(text, "t.csv");
  InferValidationOptions o;
  o.holdout = InferHoldout::gpu;
  const InferValidation v = validate_inference(csv, cat(), o);
  ASSERT_EQ(v.folds.size(), 2u);
  for (const InferFold& f : v.folds) {
    EXPECT_EQ(f.rows, 1);
    ASSERT_EQ(f.fitted.engines.size(), 1u);
    EXPECT_EQ(f.fitted.engines[0].engine, "trtllm");
    EXPECT_EQ(f.fitted.engines[0].step_rows, 1);
  }
  // The folds see different rows, so (with these measurements 1.4x apart on GPUs whose decode
  // differs by less) they fit different overheads.
  EXPECT_NE(v.folds[0].fitted.engines[0].step_overhead_s, v.folds[1].fitted.engines[0].step_overhead_s);
  EXPECT_EQ(v.by_group.summaries().size(), 2u);
  EXPECT_EQ(v.by_group.summaries()[0].first, "trtllm | h200-sxm | fp8 | c<=8 | tpot_ms");
  // In-sample on the same rows: the catalog's constants.
  const InferValidation in = validate_inference(csv, cat());
  EXPECT_TRUE(in.folds.empty());
  EXPECT_EQ(in.holdout, InferHoldout::none);
}

// A fold with no row of a (family, precision) leaves its factor at 1, not the catalog's value
// (which was fitted on every row, the held-out ones included).
TEST(InferValidation, UnseenFamilyScaleIsOneInAFold) {
  const std::string text = std::string(kHeader) +
      "a,s1,llama3.1-70b,b200,1,1,1,1,fp8,fp8,1024,1024,fixed_concurrency,4,vllm,tpot_ms,16.3,\n"
      "b,s1,llama3.1-70b,h200-sxm,1,1,1,1,fp8,fp8,1024,1024,fixed_concurrency,4,vllm,tpot_ms,21.5,\n";
  InferValidationOptions o;
  o.holdout = InferHoldout::gpu;
  const InferValidation v = validate_inference(CsvTable::parse(text, "t.csv"), cat(), o);
  ASSERT_EQ(v.folds.size(), 2u);
  EXPECT_EQ(v.folds[0].held_out, "b200");
  EXPECT_TRUE(v.folds[0].fitted.scales.empty());  // without b200 no Blackwell row is left
  ASSERT_EQ(v.folds[1].fitted.scales.size(), 1u);  // without h200: Blackwell FP8 from the b200 row
  EXPECT_EQ(v.folds[1].fitted.scales[0].family, "blackwell");
  EXPECT_EQ(v.folds[1].fitted.scales[0].bw_rows, 1);
}

// A precision of a family with no rows in the fit takes the family's GEMM factor pooled over
// its precisions with GEMM rows, weighted by rows, geometrically:
// exp((22·ln 0.67 + 8·ln 0.70) / 30) = exp((22·(−0.40048) + 8·(−0.35667)) / 30) = exp(−0.38880)
// = 0.67787. Entries without GEMM rows and other families do not count; no rows at all: 1.
TEST(InferValidation, PooledGemmScaleOfAFamily) {
  std::vector<InferFittedScale> scales(4);
  scales[0].family = "blackwell";
  scales[0].precision = Precision::fp4;
  scales[0].gemm_scale = 0.67;
  scales[0].gemm_rows = 22;
  scales[1].family = "blackwell";
  scales[1].precision = Precision::fp8;
  scales[1].gemm_scale = 0.70;
  scales[1].gemm_rows = 8;
  scales[2].family = "blackwell";
  scales[2].precision = Precision::int8;
  scales[2].gemm_scale = 0.10;  // no GEMM rows: ignored
  scales[3].family = "ampere";
  scales[3].gemm_scale = 1.3;
  scales[3].gemm_rows = 38;
  EXPECT_NEAR(pooled_gemm_scale(scales, "blackwell"), 0.67787, 5e-6);
  EXPECT_DOUBLE_EQ(pooled_gemm_scale(scales, "ampere"), 1.3);
  EXPECT_DOUBLE_EQ(pooled_gemm_scale(scales, "hopper"), 1.0);
}

// The catalog's `other` key gives every unlisted precision the pooled factor; listed ones
// keep theirs (Blackwell: FP8 0.68, FP4 0.67, BF16 the pooled 0.67).
TEST(InferValidation, CatalogOtherServingFactor) {
  const Efficiency* e = efficiency_for(cat().efficiencies, cat().gpu("b200"));
  ASSERT_NE(e, nullptr);
  EXPECT_DOUBLE_EQ(e->serving_gemm_scale[index_of(Precision::fp8)], 0.68);
  EXPECT_DOUBLE_EQ(e->serving_gemm_scale[index_of(Precision::fp4)], 0.67);
  EXPECT_DOUBLE_EQ(e->serving_gemm_scale[index_of(Precision::bf16)], 0.67);
  EXPECT_DOUBLE_EQ(e->serving_bw_scale[index_of(Precision::bf16)], 1.0);  // streaming is not pooled
}

// NVFP4 stores one FP8 scale per 16 FP4 values: 0.5 + 1/16 = 0.5625 B per weight, 12.5% more
// than the bare 4 bits; MXFP4 one E8M0 scale per 32: 0.53125 B.
TEST(InferValidation, BlockScaledFp4Bytes) {
  EXPECT_DOUBLE_EQ(quantised_weight_bytes(Precision::fp4), 0.5625);
  EXPECT_DOUBLE_EQ(kMxfp4BytesPerWeight, 0.53125);
  EXPECT_DOUBLE_EQ(quantised_weight_bytes(Precision::fp8), 1.0);
  const InferContext ctx = make_infer_context(cat(), cat().model("llama3.1-70b"), cat().gpu("b200"),
                                              cat().engine("tensorrt-llm-1.0"));
  const InferWeights& w = ctx.weights;
  const double quantised = w.layer_matmul + w.routed_experts;
  EXPECT_DOUBLE_EQ(serving_weight_bytes(w, Precision::fp4) - serving_weight_bytes(w, Precision::fp8),
                   quantised * (0.5625 - 1.0));
}

// The fitted serving constants are strict: a negative overhead or a zero scale names the key.
TEST(InferValidation, ServingConstantsAreStrict) {
  const auto dir = testing::scratch_dir("serving-strict");
  testing::write_file(dir / "e.toml",
                      "kind = \"engine\"\nid = \"x\"\nname = \"X\"\nsource = \"t\"\nretrieved = \"2026-11-24\"\n"
                      "[memory]\nbudget_rule = \"total_fraction\"\nmemory_fraction = 0.9\nkv_block_tokens = 16\n"
                      "[scheduler]\nmax_num_seqs = 8\nmax_num_batched_tokens = 8192\n"
                      "[performance]\nbw_fraction = 0.8\nrequest_overhead_us = -5\n");
  CatalogOptions options;
  options.user_paths = {(dir / "e.toml").string()};
  try {
    load_catalog(options);
    ADD_FAILURE() << "negative request_overhead_us accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("request_overhead_us"), std::string::npos) << e.what();
  }
}

// The serving factors of an efficiency file are strict too: zero, or a key that names no
// precision, is an error naming the key (read from a copy of the shipped Blackwell file).
TEST(InferValidation, ServingFactorsAreStrict) {
  std::ifstream in(testing::source_dir() + "/data/fitted/efficiency/blackwell.toml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_NE(text.find("fp8 = 0.68"), std::string::npos);
  const auto dir = testing::scratch_dir("serving-factors");
  for (const auto& [bad, key] : {std::pair<std::string, std::string>{"fp8 = 0 ", "fp8"}, {"fp9 = 0.68", "fp9"}}) {
    std::string edited = text;
    edited.replace(edited.find("fp8 = 0.68"), 10, bad);
    testing::write_file(dir / "blackwell.toml", edited);
    CatalogOptions options;
    options.user_paths = {(dir / "blackwell.toml").string()};
    try {
      load_catalog(options);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// A source whose offline benchmark sent a fixed number of requests per run
// (data/validation/inference-sources.toml: Azure's trtllm-bench runs, 1,000): its offline rows
// are predicted with the running batch capped there, so the same row is slower than uncapped
// (the engine would run 2,048 of these 1,152-token sequences, which fit), and exactly as fast as
// the engine with max_num_seqs 1,000. Other sources' rows and closed-loop rows get no cap.
TEST(InferValidation, SourceRequestCountCapsTheOfflineBatch) {
  const std::string text = std::string(kHeader) +
      "a,github.com/Azure/AI-benchmarking-guide results,llama3.1-8b,gb200,1,1,1,1,fp8,fp8,128,1024,"
      "offline_max_throughput,,tensorrt-llm,output_tokens_per_s_total,46703,\n"
      "b,another source,llama3.1-8b,gb200,1,1,1,1,fp8,fp8,128,1024,offline_max_throughput,,tensorrt-llm,"
      "output_tokens_per_s_total,46703,\n"
      "c,github.com/Azure/AI-benchmarking-guide results,llama3.1-8b,gb200,1,1,1,1,fp8,fp8,128,1024,"
      "fixed_concurrency,4,tensorrt-llm,tpot_ms,10,\n";
  const std::vector<InferCase> cases = read_inference_cases(CsvTable::parse(text, "t.csv"), cat());
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_DOUBLE_EQ(cases[0].benchmark_requests, 1000);
  EXPECT_DOUBLE_EQ(cases[1].benchmark_requests, 0);
  EXPECT_DOUBLE_EQ(cases[2].benchmark_requests, 0);
  ASSERT_GT(cases[0].engine->max_num_seqs, 1000);
  InferPredictor predictor(cat());
  const double capped = predictor.predict(cases[0]);
  const double uncapped = predictor.predict(cases[1]);
  EXPECT_LT(capped, uncapped);
  Engine at_1000 = *cases[0].engine;
  at_1000.max_num_seqs = 1000;
  InferCase by_hand = cases[1];
  by_hand.engine = &at_1000;
  InferPredictor other(cat());
  EXPECT_DOUBLE_EQ(capped, other.predict(by_hand));
}

// TensorRT-LLM's 1.x performance overview launched every model with padded CUDA graphs
// (data/validation/inference-sources.toml `cuda_graph_batch_sizes`): its rows, offline or not,
// are predicted with a copy of the engine that pads to those sizes, exactly as fast as that
// engine by hand; another source's row keeps the engine's own (tensorrt-llm-1.0: none).
TEST(InferValidation, SourceCudaGraphSizesPadTheSourcesRows) {
  const std::string text = std::string(kHeader) +
      "a,NVIDIA/TensorRT-LLM docs/source/developer-guide/perf-overview.md @03e27c7d,qwen3-30b-a3b,b200,1,1,1,1,"
      "fp4,fp8,1024,1024,offline_max_throughput,,tensorrt-llm 1.x,output_tokens_per_s_total,26611,\n"
      "b,another source,qwen3-30b-a3b,b200,1,1,1,1,fp4,fp8,1024,1024,offline_max_throughput,,tensorrt-llm 1.x,"
      "output_tokens_per_s_total,26611,\n";
  const std::vector<InferCase> cases = read_inference_cases(CsvTable::parse(text, "t.csv"), cat());
  ASSERT_EQ(cases.size(), 2u);
  const std::vector<double> sizes{1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096, 8192};
  EXPECT_EQ(cases[0].cuda_graph_batch_sizes, sizes);
  EXPECT_TRUE(cases[1].cuda_graph_batch_sizes.empty());
  ASSERT_TRUE(cases[0].engine->cuda_graph_batch_sizes.empty());
  InferPredictor predictor(cat());
  const double padded = predictor.predict(cases[0]);
  const double unpadded = predictor.predict(cases[1]);
  EXPECT_LT(padded, unpadded);  // 1,528 decodes replay the graph of 2,048
  Engine with_sizes = *cases[0].engine;
  with_sizes.cuda_graph_batch_sizes = sizes;
  InferCase by_hand = cases[1];
  by_hand.engine = &with_sizes;
  InferPredictor other(cat());
  EXPECT_DOUBLE_EQ(padded, other.predict(by_hand));
}

}  // namespace
}  // namespace gpuplan
