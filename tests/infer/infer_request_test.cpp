// The serving and collective questions as library calls: request → answer, with the degrees,
// load and group shape the request implies worked out by hand.
#include <gtest/gtest.h>

#include "calibration/collective_question.h"
#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/error.h"
#include "infer/infer_request.h"
#include "workload/kv_cache.h"
#include "workload/params.h"

namespace gpuplan {
namespace {

using testing::cat;

InferRequest base() {
  InferRequest r;
  r.model = "llama3-8b";
  r.gpu = "h100-sxm";
  return r;
}

TEST(InferRequest, DefaultsAreTheCliDefaults) {
  const InferAnswer a = answer_infer(cat(), base());
  EXPECT_EQ(a.plan.tp, 1);
  EXPECT_EQ(a.plan.pp, 1);
  EXPECT_EQ(a.plan.replicas, 1);
  EXPECT_EQ(a.plan.mode, InferMode::batch);
  EXPECT_EQ(a.plan.load, 1);
  EXPECT_EQ(a.plan.input_len, 1024);
  EXPECT_EQ(a.plan.output_len, 256);
  EXPECT_EQ(a.plan.weights, Precision::bf16);
  EXPECT_EQ(a.plan.kv, Precision::bf16);
  EXPECT_EQ(a.setup.ctx.engine->id, "vllm");
  // The answer is the evaluator's on the same context and plan.
  const InferEstimate direct = evaluate_inference(a.setup.ctx, a.plan);
  ASSERT_TRUE(a.estimate.feasible) << a.estimate.reason_text();
  EXPECT_EQ(a.estimate.point.tpot_s, direct.point.tpot_s);
}

// The rule lives in the library, so the CLI, Python and the web API all refuse two loads.
TEST(InferRequest, OneLoadAtMost) {
  InferRequest r = base();
  r.batch = 4;
  r.concurrency = 8;
  EXPECT_THROW(answer_infer(cat(), r), Error);
  r = base();
  r.concurrency = 8;
  r.max_throughput = true;
  try {
    answer_infer(cat(), r);
    ADD_FAILURE() << "two loads accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("exclude each other"), std::string::npos) << e.what();
  }
  r = base();
  r.batch = 4;
  EXPECT_NO_THROW(answer_infer(cat(), r));
}

TEST(InferRequest, DegreesAndLoadFromTheFlags) {
  InferRequest r = base();
  r.gpus = 8;
  r.pp = 2;  // tp = gpus / pp = 4, one replica
  InferAnswer a = answer_infer(cat(), r);
  EXPECT_EQ(a.plan.tp, 4);
  EXPECT_EQ(a.plan.replicas, 1);
  r = base();
  r.gpus = 16;
  r.tp = 4;  // 16 / (4 × 1) = 4 replicas
  r.concurrency = 32;
  a = answer_infer(cat(), r);
  EXPECT_EQ(a.plan.replicas, 4);
  EXPECT_EQ(a.plan.mode, InferMode::concurrency);
  EXPECT_EQ(a.plan.load, 32);
  r = base();
  r.weights = "fp8";  // 8-bit weights: KV defaults to fp8
  r.max_throughput = true;
  a = answer_infer(cat(), r);
  EXPECT_EQ(a.plan.kv, Precision::fp8);
  EXPECT_EQ(a.plan.mode, InferMode::max_throughput);
}

// Drawn lengths (--random-range-ratio, --input-spread, a lengths file) take a closed loop out of
// lockstep in the closed form as well as in the simulation; fixed lengths and other loads keep it.
TEST(InferRequest, DrawnLengthsMarkThePlan) {
  InferRequest r = base();
  r.concurrency = 4;
  EXPECT_FALSE(answer_infer(cat(), r).plan.lengths_vary);
  r.simulation.random_range_ratio = 0.8;
  EXPECT_TRUE(answer_infer(cat(), r).plan.lengths_vary);
  r.simulation.random_range_ratio = 1;
  r.simulation.output_spread = 0.2;
  EXPECT_TRUE(answer_infer(cat(), r).plan.lengths_vary);
  r = base();
  r.batch = 4;
  r.simulation.input_spread = 0.2;
  EXPECT_FALSE(answer_infer(cat(), r).plan.lengths_vary);
}

TEST(InferRequest, BadInputThrowsNamingTheFlag) {
  InferRequest r = base();
  r.concurrency = 0;
  EXPECT_THROW(answer_infer(cat(), r), Error);
  r = base();
  r.input_len = 8000;  // + 256 > 8192 = llama3-8b's max_position_embeddings
  try {
    answer_infer(cat(), r);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("8192"), std::string::npos) << e.what();
  }
  r.allow_longer_context = true;
  EXPECT_TRUE(answer_infer(cat(), r).estimate.feasible);
}

// Infeasible plans are values with a kind and the whole reason (this one is 203 bytes, past
// Infeasibility's fixed 192: it must not be cut before the fix it names).
TEST(InferRequest, InfeasibleKindsAndFullReasons) {
  InferRequest r = base();
  r.tp = 3;  // 32 heads: a structural rule, bad input naming the nearest degrees (issue 34)
  EXPECT_THROW(answer_infer(cat(), r), Error);
  InferAnswer a;
  r = base();
  r.model = "llama3-70b";
  r.gpu = "h200-sxm";
  a = answer_infer(cat(), r);
  EXPECT_EQ(a.estimate.infeasibility, Infeasibility::Kind::out_of_memory);
  EXPECT_EQ(a.estimate.bottleneck, Bottleneck::capacity);
  const std::string reason = a.estimate.reason_text();
  EXPECT_GT(reason.size(), Infeasibility::kCapacity);
  EXPECT_TRUE(reason.ends_with("(--weights fp8, int4)")) << reason;
}

TEST(InferSearchRequest, TargetsAndPinnedPrecisions) {
  InferSearchRequest r;
  r.model = "llama3-8b";
  r.gpu = "h100-sxm";
  r.gpus_max = 2;
  r.tpot_ms = 50;
  r.weights = "fp8";
  r.weights_given = true;
  const InferSearchAnswer a = answer_infer_search(cat(), r);
  EXPECT_DOUBLE_EQ(a.spec.tpot_s, 0.05);
  EXPECT_EQ(a.spec.ttft_s, 0);
  ASSERT_EQ(a.spec.weights.size(), 1u);
  EXPECT_EQ(a.spec.weights[0], Precision::fp8);
  EXPECT_TRUE(a.spec.kvs.empty());  // --kv not given: the search tries them all
  ASSERT_TRUE(a.result.found) << a.result.reason;
  EXPECT_LE(a.result.estimate.point.tpot_s, 0.05);
}

// One KV formula: the model report's per-sequence bytes are the serving model's at TP = PP = 1.
// DeepSeek-V3 (MLA): (kv_lora_rank 512 + qk_rope_head_dim 64) × 2 bytes = 1152 bytes per token
// per layer in bf16 (DeepSeek-V2 paper §2.1.4, Table 1).
TEST(KvCache, OneDefinitionForReportAndServing) {
  const ModelSpec& v3 = cat().model("deepseek-v3");
  EXPECT_EQ(kv_cache_bytes_per_token_per_layer(v3, Precision::bf16), 1152);
  EXPECT_EQ(kv_elems_per_token_per_layer(v3), 576);
  for (const char* id : {"llama3-8b", "deepseek-v3", "gpt-oss-120b"}) {
    const ModelSpec& m = cat().model(id);
    EXPECT_EQ(kv_cache_bytes(m, 5000, Precision::fp8),
              kv_bytes_per_seq_per_gpu(make_kv_shape(m), 5000, Precision::fp8, 1, 1))
        << id;
  }
}

TEST(CollectiveQuestion, GroupShapeFromGpusAndSystem) {
  CollectiveCommandRequest r;
  r.op = "allreduce";
  r.bytes = "64MiB";
  r.gpus = 16;
  r.system = "dgx-h100";  // 8 GPUs per node: 16 GPUs = 2 domains × 8
  CollectiveAnswer a = answer_collective(cat(), r);
  EXPECT_EQ(a.query.request.domains, 2);
  EXPECT_EQ(a.query.request.gpus_per_domain, 8);
  EXPECT_EQ(a.query.request.bytes, 64.0 * 1024 * 1024);
  EXPECT_TRUE(a.calibrated.empty());
  r.bytes.clear();
  r.sweep = true;
  r.dtype = "fp32";
  a = answer_collective(cat(), r);
  EXPECT_TRUE(a.sweep);
  EXPECT_EQ(a.query.dtype_bytes, 4);
  EXPECT_EQ(collective_sweep_sizes().size(), 26u);  // 2^9 ... 2^34 bytes
  r.system = "dgx-b200";
  r.fabric = "dgx-superpod-h100";  // a fabric built from another system
  EXPECT_THROW(answer_collective(cat(), r), Error);
}

}  // namespace
}  // namespace gpuplan
