// The answers a planner is expected to give (issue 18): recommend never trades months for a
// rounding-error saving and names the knee; offers that cannot supply a GPU count are not
// priced at it; an empty search space names divisibility and the nearest batches; `cost`
// prices the training evaluator's best plan, so it agrees with `search`.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "econ/cost_request.h"
#include "econ/recommend_request.h"
#include "search/empty_space.h"
#include "search/search_request.h"

namespace gpuplan {
namespace {

RecommendRequest eight_b() {
  RecommendRequest o;
  o.model = "llama3-8b";
  o.tokens = 100e9;
  o.gpus_list = {8, 16, 32, 64};
  o.global_batch = 256;
  o.seq_len = 4096;
  o.time_limit_s = 1;
  return o;
}

// With no budget the pick is the fastest front point within --cost-tolerance of the cheapest:
// nothing faster is within it, and it is within it.
TEST(PlannerAnswers, RecommendPicksFastestWithinToleranceOfCheapest) {
  const RecommendAnswer r = answer_recommend(default_catalog(), eight_b());
  ASSERT_TRUE(r.have_pick);
  const double limit = r.front.back().cost_usd * 1.05;
  EXPECT_LE(r.pick.cost_usd, limit);
  for (const RecommendPoint& p : r.front) {
    if (p.time_s < r.pick.time_s) {
      EXPECT_GT(p.cost_usd, limit) << "a faster point was within 5%";
    }
  }
  EXPECT_NE(r.pick_rule.find("5%"), std::string::npos) << r.pick_rule;
}

TEST(PlannerAnswers, ZeroToleranceIsTheCheapest) {
  RecommendRequest o = eight_b();
  o.cost_tolerance = 0;
  const RecommendAnswer r = answer_recommend(default_catalog(), o);
  ASSERT_TRUE(r.have_pick);
  EXPECT_DOUBLE_EQ(r.pick.cost_usd, r.front.back().cost_usd);
}

TEST(PlannerAnswers, KneeIsAnInteriorFrontPointBelowTheChord) {
  const RecommendAnswer r = answer_recommend(default_catalog(), eight_b());
  if (r.front.size() < 3) {
    EXPECT_EQ(r.knee_index, -1);
    return;
  }
  ASSERT_GT(r.knee_index, 0);
  ASSERT_LT(r.knee_index, static_cast<int>(r.front.size()) - 1);
  // Below the chord in scaled (log time, log cost): x + y < 1.
  const auto& f = r.front;
  const double x = std::log(f[r.knee_index].time_s / f.front().time_s) / std::log(f.back().time_s / f.front().time_s);
  const double y =
      std::log(f[r.knee_index].cost_usd / f.back().cost_usd) / std::log(f.front().cost_usd / f.back().cost_usd);
  EXPECT_LT(x + y, 1);
}

TEST(PlannerAnswers, BadCostToleranceNamesTheFlag) {
  RecommendRequest o = eight_b();
  o.cost_tolerance = -0.1;
  try {
    answer_recommend(default_catalog(), o);
    FAIL() << "accepted a negative tolerance";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--cost-tolerance"), std::string::npos);
  }
}

// Vast.ai rents one machine per contract (max_gpus_per_offer = 8 in data/clouds/vast.toml):
// 16 or more GPUs are never priced there.
TEST(PlannerAnswers, OffersAreNotPricedBeyondTheirCapacity) {
  const Catalog& cat = default_catalog();
  bool vast = false;
  for (const CloudOffer& o : cat.offers) {
    if (o.provider != "vast") continue;
    vast = true;
    EXPECT_EQ(o.max_gpus, 8) << o.instance;
    EXPECT_FALSE(o.max_gpus_source.empty());
  }
  ASSERT_TRUE(vast);
  RecommendRequest o = eight_b();
  o.gpus_list = {16, 32};
  const RecommendAnswer r = answer_recommend(cat, o);
  for (const RecommendPoint& p : r.front) EXPECT_NE(p.offer->provider, "vast");
  EXPECT_GT(r.over_capacity, 0);
}

// 5,128 GPUs = 8 × 641: with TP, CP and PP limited to powers of two by Llama 3 8B's 32 heads,
// 8,192-token sequences and 32 layers, every dp is 641 × 2^k, so the batch must be a multiple
// of 641: 1,923 = 3 × 641 below 2,520, 2,564 = 4 × 641 above.
TEST(PlannerAnswers, EmptySearchSpaceNamesDivisibilityAndNearestBatches) {
  SearchRequest s;
  s.model = "llama3-8b";
  s.gpu = "h100-sxm";
  s.gpus = 5128;
  s.global_batch = 2520;
  s.seq_len = 8192;
  const SearchAnswer a = answer_search(default_catalog(), s);
  EXPECT_TRUE(a.result.top.empty());
  EXPECT_NE(a.empty_space.find("divisibility"), std::string::npos) << a.empty_space;
  EXPECT_EQ(a.batch_below, 1923);
  EXPECT_EQ(a.batch_above, 2564);
  EXPECT_NE(a.empty_space.find("--global-batch 1923 or 2564"), std::string::npos) << a.empty_space;
}

TEST(PlannerAnswers, NonEmptySpaceHasNoReason) {
  const ModelSpec& m = default_catalog().model("llama3-8b");
  SearchSpace s;
  s.gpus = 8;
  s.global_batch = 64;
  s.seq_len = 8192;
  EXPECT_FALSE(explain_empty_space(m, s).empty);
}

// "Minimum GPUs that fit": Llama 3 70B's training state (16 bytes a parameter under mixed-
// precision Adam = 1.1 TB) cannot fit on 2 H100s; the answer names the fewest of 4, 8, 16, ...
// that does, and the search at half that count finds nothing.
TEST(PlannerAnswers, NoPlanFitsNamesTheFewestGpusThatDo) {
  SearchRequest s;
  s.model = "llama3-70b";
  s.gpu = "h100-sxm";
  s.gpus = 2;
  s.global_batch = 64;
  s.seq_len = 4096;
  const SearchAnswer a = answer_search(default_catalog(), s);
  ASSERT_TRUE(a.result.top.empty());
  ASSERT_GT(a.min_gpus_that_fit, 2);
  // 1.1 TB of state over 80 GB GPUs needs at least 14, so at least 16 of the doubling series.
  EXPECT_GE(a.min_gpus_that_fit, 16);
  SearchRequest fits = s;
  fits.gpus = a.min_gpus_that_fit;
  fits.top = 1;
  EXPECT_FALSE(answer_search(default_catalog(), fits).result.top.empty());
  SearchRequest half = s;
  half.gpus = a.min_gpus_that_fit / 2;
  EXPECT_TRUE(answer_search(default_catalog(), half).result.top.empty());
}

// `cost --model` runs the search `search` runs: same best plan, same throughput (well within
// the 5%), duration = tokens / throughput.
TEST(PlannerAnswers, CostAgreesWithSearch) {
  CostRequest c;
  c.gpu = "h100-sxm";
  c.gpus = 8;
  c.model = "llama3-8b";
  c.tokens = "10B";
  c.seq_len = 8192;
  c.usd_per_gpu_hour = 2.0;
  const CostAnswer cost = answer_cost(default_catalog(), c);
  ASSERT_TRUE(cost.has_model);
  EXPECT_EQ(cost.model.method, "search");
  // 2^22 tokens / 8,192 = 512 sequences, already a multiple of 8.
  EXPECT_EQ(cost.model.global_batch, 512);
  SearchRequest s;
  s.model = "llama3-8b";
  s.gpu = "h100-sxm";
  s.gpus = 8;
  s.global_batch = 512;
  s.seq_len = 8192;
  const SearchAnswer a = answer_search(default_catalog(), s);
  ASSERT_FALSE(a.result.top.empty());
  const double search_hours = 10e9 / a.result.top.front().estimate.tokens_per_s / 3600;
  EXPECT_NEAR(cost.wall_hours, search_hours, 0.05 * search_hours);
  EXPECT_NEAR(cost.wall_hours, search_hours, 1e-9 * search_hours);  // the same search, in fact
}

// --rule-of-thumb keeps 6·N·D at --mfu: hours = 6 N D / (GPUs × peak × MFU) / 3600.
TEST(PlannerAnswers, RuleOfThumbOnlyWhenAsked) {
  CostRequest c;
  c.gpu = "h100-sxm";
  c.gpus = 8;
  c.model = "llama3-8b";
  c.tokens = "10B";
  c.usd_per_gpu_hour = 2.0;
  c.rule_of_thumb = true;
  c.mfu = 0.5;
  const CostAnswer a = answer_cost(default_catalog(), c);
  EXPECT_EQ(a.model.method, "6ND");
  const double expect_h = 6 * a.model.params * 10e9 / (8 * a.model.peak_flops_per_s * 0.5) / 3600;
  EXPECT_NEAR(a.wall_hours, expect_h, 1e-9 * expect_h);
  c.rule_of_thumb = false;
  try {
    answer_cost(default_catalog(), c);  // --mfu without --rule-of-thumb
    FAIL() << "accepted --mfu without --rule-of-thumb";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--rule-of-thumb"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuplan
