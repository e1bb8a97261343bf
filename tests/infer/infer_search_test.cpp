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

// Issue 29: DeepSeek-V3 on up to 8 H200s. TP 7 divides neither its 128 heads nor its 256 experts
// nor an expert's 2048 columns: no plan of the space may have it, whatever the attention DP (at
// attention DP 7 the heads are whole per rank, but the experts would still be split 7 ways).
TEST(InferSearch, DeepSeekV3NeverGetsTp7AndEpDividesTheExperts) {
  const InferContext ctx = infer_context("deepseek-v3", "h200-sxm");
  const ModelSpec& m = *ctx.model;
  InferSearchSpec spec = small_spec();
  spec.gpus_max = 8;
  spec.weights = {Precision::fp8};
  spec.kvs = {Precision::bf16};
  bool saw_tp8 = false;
  for (const InferPlan& p : infer_search_space(ctx, spec)) {
    EXPECT_EQ(m.moe.experts % p.ep, 0) << "ep " << p.ep;
    EXPECT_EQ(m.moe.expert_ffn_hidden % (p.tp / p.ep), 0) << "tp " << p.tp << " ep " << p.ep;
    EXPECT_EQ(m.heads % p.attention_tp(), 0) << "tp " << p.tp << " adp " << p.attention_dp;
    EXPECT_NE(p.tp, 7);
    saw_tp8 |= p.tp == 8;
  }
  EXPECT_TRUE(saw_tp8);
  InferPlan seven;
  seven.tp = 7;
  seven.attention_dp = 7;  // attention whole per rank: only the expert split is wrong
  const std::string why = check_infer_plan(m, seven);
  EXPECT_NE(why.find("splits each expert of deepseek-v3 7 ways"), std::string::npos) << why;
  EXPECT_NE(why.find("2048"), std::string::npos) << why;
  seven.attention_dp = 1;
  EXPECT_NE(check_infer_plan(m, seven).find("does not divide the 128 attention heads"), std::string::npos);
  InferPlan ep3;
  ep3.tp = 6;
  ep3.ep = 3;
  ep3.attention_dp = 6;
  EXPECT_NE(check_infer_plan(m, ep3).find("EP 3 does not divide the 256 experts"), std::string::npos);
  // The search and `infer` share the rule: the best plan is a valid one.
  const InferSearchResult r = infer_search(ctx, spec);
  ASSERT_TRUE(r.found) << r.reason;
  EXPECT_TRUE(check_infer_plan(m, r.plan).empty());
  EXPECT_NE(r.plan.tp, 7);
}

// The dense MLP columns follow the same rule: Llama 2 13B's 40 heads allow TP 5, its 13824
// intermediate columns do not (13824 = 2^9 x 27).
TEST(InferSearch, TpMustDivideTheDenseMlpColumns) {
  const ModelSpec& m = default_catalog().model("llama2-13b");
  ASSERT_EQ(m.heads % 5, 0);
  ASSERT_NE(m.ffn_hidden % 5, 0);
  InferPlan p;
  p.tp = 5;
  const std::string why = check_infer_plan(m, p);
  EXPECT_NE(why.find("TP 5 does not divide the 13824 MLP columns"), std::string::npos) << why;
  EXPECT_NE(why.find("MLP columns"), std::string::npos) << why;
}

}  // namespace
}  // namespace gpuplan
