// The plan search: enumeration against an independent naive one, the pruned search against
// brute force, and the answer when nothing fits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

#include "catalog/system_choice.h"
#include "search/search.h"

namespace gpuplan {
namespace {

TrainContext train_context(const std::string& model, const std::string& gpu = "h100-sxm") {
  const Catalog& cat = default_catalog();
  const Gpu& g = cat.gpu(gpu);
  return make_train_context(cat, cat.model(model), g, default_system_for(cat, g), nullptr);
}

SearchSpace space(int gpus, int global_batch, int seq_len) {
  SearchSpace s;
  s.gpus = gpus;
  s.global_batch = global_batch;
  s.seq_len = seq_len;
  return s;
}

using Key = std::tuple<int, int, int, int, int, int, bool, int, int, int, int>;
Key key(const Plan& p) {
  return {p.tp, p.pp, p.vp, p.cp, p.dp, p.ep, p.sp, p.zero, p.dp_shard, p.micro_batch, static_cast<int>(p.recompute)};
}

// Every tuple of degrees up to the GPU count, kept when the evaluator accepts it, written in
// the enumeration's canonical form (dp_shard 0 for "all of dp", sp only with TP, VP only
// when the layers split evenly over pp × vp). Shares no code with enumerate.cpp.
std::set<Key> naive_space(const TrainContext& ctx, const SearchSpace& s) {
  std::set<Key> out;
  const ModelSpec& m = *ctx.model;
  const int n = s.gpus;
  const int max_ep = m.is_moe() ? n : 1;
  for (int tp = 1; tp <= n; ++tp)
    for (int pp = 1; pp <= n; ++pp)
      for (int cp = 1; cp <= n; ++cp)
        for (int dp = 1; dp <= n; ++dp) {
          if (tp * pp * cp * dp != n) continue;
          for (int vp = 1; vp <= m.layers; ++vp) {
            if (vp > 1 && m.layers % (pp * vp) != 0) continue;
            for (int ep = 1; ep <= max_ep; ++ep)
              for (int sp = 0; sp <= (tp > 1 ? 1 : 0); ++sp)
                for (int zero = 0; zero <= 3; ++zero)
                  for (int shard = 0; shard < (zero == 0 ? 1 : dp); ++shard)  // 0 = all of dp
                    for (int mb = 1; mb <= s.global_batch; ++mb)
                      for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full}) {
                        Plan p;
                        p.tp = tp, p.pp = pp, p.vp = vp, p.cp = cp, p.dp = dp, p.ep = ep, p.sp = sp == 1;
                        p.zero = zero, p.dp_shard = shard, p.micro_batch = mb, p.recompute = r;
                        p.global_batch = s.global_batch, p.seq_len = s.seq_len, p.precision = s.precision;
                        if (!evaluate(ctx, p).valid()) continue;
                        out.insert(key(p));
                      }
          }
        }
  return out;
}

void expect_enumeration_complete(const std::string& model, int gpus, int gb, int seq) {
  const TrainContext ctx = train_context(model);
  const SearchSpace s = space(gpus, gb, seq);
  const std::vector<Plan> plans = enumerate_plans(*ctx.model, s);
  std::set<Key> got;
  for (const Plan& p : plans) {
    const Estimate e = evaluate(ctx, p);
    EXPECT_TRUE(e.valid()) << model << ": enumerated an invalid plan: " << e.reason_text();
    EXPECT_EQ(p.gpus(), gpus);
    got.insert(key(p));
  }
  EXPECT_EQ(got.size(), plans.size()) << "duplicates in the enumeration";
  EXPECT_EQ(static_cast<long long>(plans.size()), count_plans(*ctx.model, s));
  EXPECT_EQ(got, naive_space(ctx, s)) << model << " on " << gpus;
}

TEST(Enumerate, DenseMatchesNaiveEnumeration) { expect_enumeration_complete("gpt2", 8, 8, 1024); }
TEST(Enumerate, GqaMatchesNaiveEnumeration) { expect_enumeration_complete("llama3-8b", 4, 4, 2048); }
TEST(Enumerate, MoeMatchesNaiveEnumeration) { expect_enumeration_complete("mixtral-8x7b", 8, 4, 1024); }

TEST(Enumerate, DivisibilityRules) {
  const TrainContext ctx = train_context("llama3.1-405b");
  for (const Layout& l : enumerate_layouts(*ctx.model, space(1024, 512, 8192))) {
    EXPECT_EQ(ctx.model->heads % l.tp, 0);
    EXPECT_EQ(l.tp * l.pp * l.cp * l.dp, 1024);
    EXPECT_EQ(512 % l.dp, 0);
    EXPECT_EQ(8192 % l.cp, 0);
    EXPECT_LE(l.pp, ctx.model->layers);
    if (l.vp > 1) {
      EXPECT_EQ(ctx.model->layers % (l.pp * l.vp), 0);
    }
  }
}

// The best plan by a plain loop over every plan: no heap, no threads, no pruning.
Candidate brute_best(const TrainContext& ctx, const SearchSpace& s, const SearchOptions& o) {
  const Ranker r = make_ranker(ctx, s, o);
  Candidate best;
  bool have = false;
  for (const Plan& p : enumerate_plans(*ctx.model, s)) {
    const Estimate e = evaluate(ctx, p);
    if (!e.feasible()) continue;
    const Candidate c{p, e, r.score(e)};
    if (!have || candidate_less(c, best)) best = c, have = true;
  }
  return best;
}

struct SearchCase {
  const char* model;
  int gpus, gb, seq;
};

class SearchVsBruteForce : public ::testing::TestWithParam<std::tuple<SearchCase, Objective>> {};

TEST_P(SearchVsBruteForce, PruningNeverChangesTheTopK) {
  const auto& [c, objective] = GetParam();
  const TrainContext ctx = train_context(c.model);
  const SearchSpace s = space(c.gpus, c.gb, c.seq);
  SearchOptions o;
  o.top_k = 5;
  o.objective = objective;
  o.usd_per_gpu_hour = 2.5;
  o.threads = 2;
  SearchOptions brute = o;
  brute.prune = false;
  brute.threads = 1;
  const SearchResult pruned = search_plans(ctx, s, o);
  const SearchResult all = search_plans(ctx, s, brute);
  EXPECT_EQ(all.evaluated, all.space);
  EXPECT_EQ(all.pruned, 0);
  EXPECT_EQ(pruned.evaluated + pruned.pruned, pruned.space);
  ASSERT_EQ(pruned.top.size(), all.top.size());
  ASSERT_FALSE(all.top.empty()) << c.model;
  for (std::size_t i = 0; i < all.top.size(); ++i) {
    EXPECT_EQ(key(pruned.top[i].plan), key(all.top[i].plan)) << c.model << " rank " << i;
    EXPECT_DOUBLE_EQ(pruned.top[i].score, all.top[i].score);
  }
  const Candidate best = brute_best(ctx, s, o);
  EXPECT_EQ(key(pruned.top.front().plan), key(best.plan));
  EXPECT_DOUBLE_EQ(pruned.top.front().score, best.score);
}

INSTANTIATE_TEST_SUITE_P(Small, SearchVsBruteForce,
                         ::testing::Combine(::testing::Values(SearchCase{"llama3-8b", 8, 32, 4096},
                                                              SearchCase{"llama3-8b", 32, 64, 8192},
                                                              SearchCase{"llama3-70b", 64, 64, 4096},
                                                              SearchCase{"mixtral-8x7b", 16, 32, 4096},
                                                              SearchCase{"gpt3-175b", 64, 64, 2048}),
                                            ::testing::Values(Objective::time, Objective::cost, Objective::mfu)),
                         [](const auto& param_info) {
                           std::string name = std::string(std::get<0>(param_info.param).model) + "_" +
                                              std::to_string(std::get<0>(param_info.param).gpus) + "gpus_" +
                                              std::string(objective_name(std::get<1>(param_info.param)));
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

TEST(Search, PrunesOnALargeSpace) {
  const TrainContext ctx = train_context("llama3-70b");
  SearchOptions o;
  o.top_k = 3;
  const SearchResult r = search_plans(ctx, space(256, 256, 4096), o);
  EXPECT_GT(r.pruned, 0);
  EXPECT_EQ(r.evaluated + r.pruned, r.space);
  ASSERT_FALSE(r.top.empty());
  EXPECT_TRUE(r.top.front().estimate.feasible());
}

TEST(Search, ThreadCountDoesNotChangeTheAnswer) {
  const TrainContext ctx = train_context("llama3-70b");
  const SearchSpace s = space(128, 128, 4096);
  SearchOptions one;
  one.threads = 1;
  SearchOptions two = one;
  two.threads = 2;
  const SearchResult a = search_plans(ctx, s, one);
  const SearchResult b = search_plans(ctx, s, two);
  ASSERT_EQ(a.top.size(), b.top.size());
  for (std::size_t i = 0; i < a.top.size(); ++i) EXPECT_EQ(key(a.top[i].plan), key(b.top[i].plan));
}

TEST(Search, NothingFitsGivesTheClosestPlansWithReasons) {
  // 405B parameters × 16 bytes of training state is 6.5 TB: 8 H100s (640 GB) cannot hold it.
  const TrainContext ctx = train_context("llama3.1-405b");
  SearchOptions o;
  o.closest = 3;
  const SearchResult r = search_plans(ctx, space(8, 8, 4096), o);
  EXPECT_EQ(r.feasible, 0);
  EXPECT_TRUE(r.top.empty());
  ASSERT_EQ(r.closest.size(), 3u);
  for (const Candidate& c : r.closest) {
    EXPECT_TRUE(c.estimate.valid());
    EXPECT_FALSE(c.estimate.fits());
    EXPECT_NE(std::string(c.estimate.reason_text()).find("GiB"), std::string::npos) << c.estimate.reason_text();
  }
  EXPECT_LE(r.closest[0].estimate.memory.total_bytes, r.closest[1].estimate.memory.total_bytes);
  // The first is the least memory of any plan in the space.
  double least = 1e300;
  for (const Plan& p : enumerate_plans(*ctx.model, space(8, 8, 4096))) {
    const Estimate e = evaluate(ctx, p);
    if (e.valid()) least = std::min(least, e.memory.total_bytes);
  }
  EXPECT_DOUBLE_EQ(r.closest[0].estimate.memory.total_bytes, least);
}

TEST(Search, EmptySpaceIsNotAnError) {
  const TrainContext ctx = train_context("llama3-8b");
  const SearchResult r = search_plans(ctx, space(8, 3, 4096), {});  // no dp divides a batch of 3 but dp 1
  EXPECT_EQ(r.evaluated + r.pruned, r.space);
}

TEST(Rank, ObjectivesAreMonotoneInStepTime) {
  Ranker r;
  r.gpus = 8;
  r.usd_per_gpu_hour = 3;
  r.peak_flops = 1e15;
  r.model_flops_per_step = 1e18;
  for (Objective o : {Objective::time, Objective::cost, Objective::mfu}) {
    r.objective = o;
    EXPECT_LT(r.score_bound(1.0), r.score_bound(2.0)) << objective_name(o);
  }
  EXPECT_DOUBLE_EQ(step_cost_usd(3600, 8, 3), 24);
}

TEST(Rank, CheapestOnDemandOfferIsDatedAndCurrent) {
  const Catalog& cat = default_catalog();
  const auto p = cheapest_on_demand(cat, cat.gpu("h100-sxm"));
  ASSERT_TRUE(p.has_value());
  EXPECT_GT(p->usd_per_gpu_hour, 0);
  EXPECT_FALSE(p->offer->historical);
  EXPECT_EQ(p->offer->pricing, "on-demand");
  for (const CloudOffer& o : cat.offers) {
    if (o.gpu == "h100-sxm" && o.pricing == "on-demand" && !o.historical && !o.gpu_component_only) {
      EXPECT_GE(o.usd_per_gpu_hour, p->usd_per_gpu_hour);
    }
  }
}

}  // namespace
}  // namespace gpuplan
