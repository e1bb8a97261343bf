// infer-search (brute-force equivalence, targets, rate, messages) and the two load mechanisms
// added for validation: grouped prompts in fixed-length closed loops, and grouped expert GEMMs.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "infer/infer_test_util.h"
#include "infer/search.h"
#include "infer/step.h"

namespace gpuplan {
namespace {

using testing::infer_context;

InferSearchSpec small_spec() {
  InferSearchSpec s;
  s.gpus_max = 2;
  s.input_len = 512;
  s.output_len = 128;
  return s;
}

// The search's optimum equals the best of a brute-force loop over the same space.
TEST(InferSearch, OptimumEqualsBruteForce) {
  const InferContext ctx = infer_context("llama3-8b", "h100-sxm");
  const InferSearchSpec spec = small_spec();
  double best = 0;
  for (const InferPlan& p : infer_search_space(ctx, spec)) {
    const InferEstimate e = evaluate_inference(ctx, p);
    if (meets_targets(spec, e)) best = std::max(best, infer_score(ctx, e, spec.objective));
  }
  const InferSearchResult r = infer_search(ctx, spec);
  ASSERT_TRUE(r.found) << r.reason;
  EXPECT_DOUBLE_EQ(r.score, best);
  EXPECT_GT(r.evaluated, 10);
  // The space holds every valid TP ≤ 2, each default precision and KV precision.
  bool saw_tp2 = false, saw_int4 = false;
  for (const InferPlan& p : infer_search_space(ctx, spec)) {
    saw_tp2 |= p.tp == 2;
    saw_int4 |= p.weights == Precision::int4;
  }
  EXPECT_TRUE(saw_tp2);
  EXPECT_TRUE(saw_int4);
}

TEST(InferSearch, TargetsAreMetAndInfeasibleTargetsNameTheFlag) {
  const InferContext ctx = infer_context("llama3-8b", "h100-sxm");
  InferSearchSpec spec = small_spec();
  spec.tpot_s = 0.02;
  const InferSearchResult ok = infer_search(ctx, spec);
  ASSERT_TRUE(ok.found) << ok.reason;
  EXPECT_LE(ok.estimate.point.tpot_s, 0.02);
  spec.tpot_s = 1e-6;  // 1 µs per token: no GPU streams 8B weights that fast
  const InferSearchResult no = infer_search(ctx, spec);
  EXPECT_FALSE(no.found);
  EXPECT_NE(no.reason.find("--tpot-ms"), std::string::npos) << no.reason;
  EXPECT_NE(no.reason.find("relax"), std::string::npos) << no.reason;
}

TEST(InferSearch, ModelThatNeverFitsSaysRaiseGpusMax) {
  const InferContext ctx = infer_context("llama3.1-405b", "l40s");
  InferSearchSpec spec = small_spec();
  spec.gpus_max = 1;
  const InferSearchResult r = infer_search(ctx, spec);
  EXPECT_FALSE(r.found);
  EXPECT_NE(r.reason.find("--gpus-max"), std::string::npos) << r.reason;
}

// With a rate, replicas × one replica's requests/s covers it, with the fewest GPUs.
TEST(InferSearch, RateGivesEnoughReplicas) {
  const InferContext ctx = infer_context("llama3-8b", "h100-sxm");
  InferSearchSpec spec = small_spec();
  spec.rate_rps = 200;
  const InferSearchResult r = infer_search(ctx, spec);
  ASSERT_TRUE(r.found) << r.reason;
  EXPECT_GE(r.estimate.requests_per_s, 200 * (1 - 1e-9));
  InferPlan fewer = r.plan;
  if (fewer.replicas > 1) {
    fewer.replicas -= 1;
    EXPECT_LT(evaluate_inference(ctx, fewer).requests_per_s, 200);
  }
}

// Grouped expert GEMMs: with few tokens per expert the output tiles are mostly empty; with
// thousands they run like a dense GEMM. Dense models are unaffected.
TEST(MoeExperts, GroupedGemmEfficiencyRisesWithTokensPerExpert) {
  const InferContext moe = infer_context("mixtral-8x7b", "h100-sxm", "tensorrt-llm");
  InferPlan p;
  const double few = expert_gemm_efficiency(moe, p, 64);     // 16 tokens per expert
  const double many = expert_gemm_efficiency(moe, p, 16384);  // 4096 per expert
  EXPECT_LT(few, many);
  EXPECT_LE(many, 1.0);
  EXPECT_GT(many, 0.8);
  EXPECT_GT(few, 0.0);
  const InferContext dense = infer_context("llama3-8b", "h100-sxm");
  EXPECT_DOUBLE_EQ(expert_gemm_efficiency(dense, p, 64), 1.0);
}

// Fixed-length closed loop: prompts arrive in groups of what one step's token budget holds
// (8192 / 1024 = 8 with vLLM's budget), so TTFT at C = 64 carries a full-budget prefill step,
// several times the single-prompt TTFT at C = 1.
TEST(ClosedLoop, GroupedArrivalsRaiseTtftUnderLoad) {
  const InferContext ctx = infer_context("llama3.1-70b", "h100-sxm");
  InferPlan p;
  p.tp = 4;
  p.weights = Precision::fp8;
  p.kv = Precision::fp8;
  p.input_len = 1024;
  p.output_len = 1024;
  p.mode = InferMode::concurrency;
  p.load = 1;
  const double c1 = evaluate_inference(ctx, p).point.ttft_s;
  p.load = 64;
  const double c64 = evaluate_inference(ctx, p).point.ttft_s;
  EXPECT_GT(c64, 3 * c1);
  p.load = 4;
  const double c4 = evaluate_inference(ctx, p).point.ttft_s;
  EXPECT_GE(c4, c1);
  EXPECT_LE(c4, c64);
}

}  // namespace
}  // namespace gpuplan
