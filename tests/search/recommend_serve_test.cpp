// `gpuplan recommend --serve`: the serving front over GPUs and offers, the targets, the rate,
// and bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "econ/serve_recommend_request.h"
#include "test_util.h"

namespace gpuplan {
namespace {

ServeRecommendRequest serve(std::optional<double> rate = std::nullopt) {
  ServeRecommendRequest o;
  o.model = "llama3.1-8b";
  o.input_len = 1024;
  o.output_len = 256;
  o.tpot_ms = 30;
  o.ttft_ms = 500;
  o.rate_rps = rate;
  o.engine = "tensorrt-llm";
  return o;
}

TEST(RecommendServe, FrontIsParetoAndMeetsTheTargets) {
  const Catalog& cat = default_catalog();
  const ServeRecommendAnswer r = answer_serve_recommend(cat, cat.model("llama3.1-8b"), serve());
  ASSERT_GE(r.front.size(), 1u);
  for (std::size_t i = 0; i < r.front.size(); ++i) {
    const ServePoint& p = r.front[i];
    EXPECT_TRUE(p.estimate.feasible);
    EXPECT_LE(p.estimate.point.tpot_s, 0.030 * (1 + 1e-9));
    EXPECT_LE(p.estimate.point.ttft_s, 0.5 * (1 + 1e-9));
    // $/M tokens = GPUs × $/GPU-hour / (tokens/s × 3,600 s) × 10^6.
    EXPECT_NEAR(p.usd_per_million_tokens,
                p.gpus * p.offer->usd_per_gpu_hour / (p.estimate.output_tokens_per_s * 3600) * 1e6,
                1e-9 * p.usd_per_million_tokens);
    EXPECT_NE(p.reason.find("fit"), std::string::npos) << p.reason;
    if (i > 0) {
      EXPECT_GE(p.usd_per_million_tokens, r.front[i - 1].usd_per_million_tokens);  // cheapest first
      EXPECT_LT(p.estimate.point.tpot_s, r.front[i - 1].estimate.point.tpot_s);    // each dearer point is faster
    }
  }
  ASSERT_TRUE(r.have_pick);
  EXPECT_DOUBLE_EQ(r.pick.usd_per_million_tokens, r.front.front().usd_per_million_tokens);
  EXPECT_GT(r.evaluated, 0);
}

TEST(RecommendServe, RateIsServedByEveryPoint) {
  const Catalog& cat = default_catalog();
  const ServeRecommendAnswer r = answer_serve_recommend(cat, cat.model("llama3.1-8b"), serve(40));
  ASSERT_GE(r.front.size(), 1u);
  for (const ServePoint& p : r.front) {
    EXPECT_GE(p.estimate.requests_per_s, 40 * (1 - 1e-9)) << p.gpu->id;
    EXPECT_DOUBLE_EQ(p.usd_per_hour, p.gpus * p.offer->usd_per_gpu_hour);
    EXPECT_EQ(p.gpus, p.plan.tp * p.plan.pp * p.plan.replicas);
  }
  // More traffic never costs less per hour at the pick.
  const ServeRecommendAnswer more = answer_serve_recommend(cat, cat.model("llama3.1-8b"), serve(400));
  ASSERT_TRUE(more.have_pick);
  EXPECT_GE(more.pick.usd_per_hour, r.pick.usd_per_hour);
}

TEST(RecommendServe, ImpossibleTargetsSayWhatToRelax) {
  const Catalog& cat = default_catalog();
  ServeRecommendRequest o = serve();
  o.tpot_ms = 0.1;
  const ServeRecommendAnswer r = answer_serve_recommend(cat, cat.model("llama3.1-8b"), o);
  EXPECT_TRUE(r.front.empty());
  EXPECT_FALSE(r.have_pick);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.front().find("relax"), std::string::npos) << r.notes.front();
}

TEST(RecommendServe, BadInputNamesTheFix) {
  const Catalog& cat = default_catalog();
  ServeRecommendRequest o = serve();
  o.providers = {"nosuchcloud"};
  EXPECT_THROW(answer_serve_recommend(cat, cat.model("llama3.1-8b"), o), Error);
  o = serve();
  o.engine = "tgi";
  EXPECT_THROW(answer_serve_recommend(cat, cat.model("llama3.1-8b"), o), Error);
  auto r = testing::run({"recommend", "--serve", "--model", "llama3.1-8b", "--tokens", "1T"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--tokens is for training"), std::string::npos) << r.err;
  r = testing::run({"recommend", "--model", "llama3.1-8b", "--rate", "3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--rate needs --serve"), std::string::npos) << r.err;
  r = testing::run({"recommend", "--model", "llama3.1-8b"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--tokens is required"), std::string::npos) << r.err;
}

TEST(RecommendServe, CliJson) {
  const auto r = testing::run({"recommend", "--serve", "--model", "llama3.1-8b", "--input-len", "512",
                               "--output-len", "128", "--tpot-ms", "40", "--providers", "lambda", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["serve"].get<bool>());
  EXPECT_EQ(j["cost_axis"], "usd_per_million_output_tokens");
  ASSERT_FALSE(j["front"].empty());
  for (const auto& p : j["front"]) {
    EXPECT_EQ(p["provider"], "lambda");
    EXPECT_LE(p["tpot_s"].get<double>(), 0.040 * (1 + 1e-9));
  }
  EXPECT_TRUE(j["pick"].is_object());
}

// On the fixture catalog fixturecloud rents fixture-gpu at 2.00 (fx.8gpu) and 2.50 (fx.1gpu) per
// GPU-hour; the GPU-only 0.50 part is never a price. The same plan on the dearer offer is no faster,
// so the front holds the 2.00 offer only, at gpus × 2.00 $/hour.
TEST(RecommendServe, FixtureFrontUsesTheCheapestWholeMachineOffer) {
  CatalogOptions options;
  options.user_paths = {testing::source_dir() + "/tests/fixtures/catalog"};
  const Catalog cat = load_catalog(options);
  ServeRecommendRequest o = serve(5.0);
  o.providers = {"fixturecloud"};
  const ServeRecommendAnswer r = answer_serve_recommend(cat, cat.model("llama3.1-8b"), o);
  ASSERT_TRUE(r.have_pick);
  for (const ServePoint& p : r.front) {
    EXPECT_EQ(p.gpu->id, "fixture-gpu");
    EXPECT_EQ(p.offer->instance, "fx.8gpu");
    EXPECT_DOUBLE_EQ(p.usd_per_hour, p.gpus * 2.0);
  }
}

}  // namespace
}  // namespace gpuplan
