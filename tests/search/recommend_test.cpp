// `gpuplan recommend`: the Pareto front, the filters, and bad providers.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "econ/recommend_request.h"
#include "test_util.h"

namespace gpuplan {
namespace {

RecommendRequest small() {
  RecommendRequest o;
  o.model = "llama3-8b";
  o.tokens = 100e9;
  o.gpus_list = {8, 16, 32};
  o.global_batch = 256;
  o.seq_len = 4096;
  return o;
}

TEST(Recommend, FrontIsParetoOptimal) {
  const Catalog& cat = default_catalog();
  const RecommendAnswer r = answer_recommend(cat, small());
  ASSERT_FALSE(r.front.empty());
  for (std::size_t i = 1; i < r.front.size(); ++i) {
    EXPECT_GE(r.front[i].time_s, r.front[i - 1].time_s);   // fastest first
    EXPECT_LT(r.front[i].cost_usd, r.front[i - 1].cost_usd);  // each slower point is cheaper
  }
  for (const RecommendPoint& p : r.front) {
    EXPECT_TRUE(p.estimate.feasible());
    // time = tokens / throughput; cost = GPU-hours × price.
    EXPECT_NEAR(p.time_s, 100e9 / p.estimate.tokens_per_s, 1e-6 * p.time_s);
    EXPECT_NEAR(p.cost_usd, p.time_s / 3600 * p.gpus * p.offer->usd_per_gpu_hour, 1e-6 * p.cost_usd);
    EXPECT_NE(p.reason.find("fits"), std::string::npos) << p.reason;
  }
  ASSERT_TRUE(r.have_pick);
  // No filter: the fastest point within --cost-tolerance (5%) of the cheapest (issue 18).
  EXPECT_LE(r.pick.cost_usd, r.front.back().cost_usd * 1.05);
}

TEST(Recommend, DeadlineAndBudgetFilter) {
  const Catalog& cat = default_catalog();
  RecommendRequest o = small();
  const RecommendAnswer all = answer_recommend(cat, o);
  ASSERT_GE(all.front.size(), 1u);
  o.deadline_days = all.front.front().time_s / 86400 * 1.01;  // only the fastest points qualify
  const RecommendAnswer d = answer_recommend(cat, o);
  for (const RecommendPoint& p : d.front) EXPECT_LE(p.time_s, *o.deadline_days * 86400);
  EXPECT_GT(d.filtered_out, 0);
  o.deadline_days.reset();
  o.budget_usd = all.front.back().cost_usd * 1.001;
  const RecommendAnswer b = answer_recommend(cat, o);
  ASSERT_TRUE(b.have_pick);
  for (const RecommendPoint& p : b.front) EXPECT_LE(p.cost_usd, *o.budget_usd);
  EXPECT_DOUBLE_EQ(b.pick.time_s, b.front.front().time_s);  // a budget: the fastest it buys
}

// The library holds the rule and names the field; the CLI says it with its flag and --serve.
TEST(Recommend, TokensAreRequired) {
  RecommendRequest o = small();
  o.tokens = 0;
  try {
    answer_recommend(default_catalog(), o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("tokens is required", 0), 0U) << e.what();
  }
  const auto r = testing::run({"recommend", "--model", "llama3-8b"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--tokens is required"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--serve"), std::string::npos) << r.err;
}

TEST(Recommend, UnknownProviderListsTheKnownOnes) {
  const Catalog& cat = default_catalog();
  RecommendRequest o = small();
  o.providers = {"nosuchcloud"};
  try {
    answer_recommend(cat, o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("aws"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("lambda"), std::string::npos) << e.what();
  }
  const auto r = testing::run({"recommend", "--model", "llama3-8b", "--tokens", "100B", "--providers", "nosuchcloud"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("known providers"), std::string::npos) << r.err;
}

TEST(Recommend, CliJsonAndProviderFilter) {
  const auto r = testing::run({"recommend", "--model", "llama3-8b", "--tokens", "100B", "--gpus-list", "8,16",
                               "--providers", "aws", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["front"].empty());
  for (const auto& p : j["front"]) EXPECT_EQ(p["provider"], "aws");
  EXPECT_TRUE(j.contains("pick"));
}

// On the fixture catalog only othercloud's oc.8gpu (fixture-gpu, 20 $/h for 8 GPUs = 2.50 per
// GPU-hour) is rentable from that provider: every point is priced at exactly that rate.
TEST(Recommend, FixturePriceIsTheOffersRate) {
  CatalogOptions options;
  options.user_paths = {testing::source_dir() + "/tests/fixtures/catalog"};
  const Catalog cat = load_catalog(options);
  RecommendRequest o = small();
  o.gpus_list = {8};
  o.providers = {"othercloud"};
  const RecommendAnswer r = answer_recommend(cat, o);
  ASSERT_FALSE(r.front.empty());
  for (const RecommendPoint& p : r.front) {
    EXPECT_EQ(p.gpu->id, "fixture-gpu");
    EXPECT_EQ(p.offer->instance, "oc.8gpu");
    EXPECT_DOUBLE_EQ(p.offer->usd_per_gpu_hour, 2.5);
    EXPECT_NEAR(p.cost_usd, p.time_s / 3600 * 8 * 2.5, 1e-9 * p.cost_usd);
  }
}

}  // namespace
}  // namespace gpuplan
