// What the search says about plans the training validation does not cover (search/coverage.h),
// and that it no longer returns plans the model cannot tell apart.
#include <gtest/gtest.h>

#include "catalog/system_choice.h"
#include "search/coverage.h"
#include "search/search.h"

namespace gpuplan {
namespace {

TEST(Coverage, APlainMegatronPlanIsCovered) {
  Plan p;
  p.tp = 8;
  p.pp = 8;
  p.dp = 16;
  p.zero = 1;
  p.seq_len = 2048;
  EXPECT_TRUE(unvalidated_mechanisms(p, 8).empty());
}

TEST(Coverage, Nvfp4TrainingIsUncovered) {
  Plan p;
  p.tp = 8;
  p.pp = 8;
  p.dp = 16;
  p.zero = 1;
  p.seq_len = 2048;
  p.precision = Precision::fp4;
  p.scaling = ScalingRecipe::nvfp4;
  const auto notes = unvalidated_mechanisms(p, 8);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("NVFP4"), std::string::npos) << notes[0];
}

TEST(Coverage, NamesEachUncoveredMechanism) {
  Plan fsdp;
  fsdp.dp = 2048;
  fsdp.zero = 3;
  fsdp.seq_len = 2048;
  ASSERT_EQ(unvalidated_mechanisms(fsdp, 8).size(), 1u);
  EXPECT_NE(unvalidated_mechanisms(fsdp, 8)[0].find("2048 GPUs"), std::string::npos);
  fsdp.dp = 128;  // inside the validated range
  EXPECT_TRUE(unvalidated_mechanisms(fsdp, 8).empty());

  Plan cp;
  cp.cp = 4;
  cp.dp = 4;
  cp.seq_len = 2048;
  ASSERT_EQ(unvalidated_mechanisms(cp, 8).size(), 1u);
  EXPECT_NE(unvalidated_mechanisms(cp, 8)[0].find("context parallelism"), std::string::npos);
  cp.seq_len = 8192;
  EXPECT_TRUE(unvalidated_mechanisms(cp, 8).empty());

  Plan hsdp;
  hsdp.dp = 16;
  hsdp.zero = 3;
  hsdp.dp_shard = 8;
  hsdp.seq_len = 4096;
  EXPECT_EQ(unvalidated_mechanisms(hsdp, 8).size(), 1u);

  Plan wide_tp;
  wide_tp.tp = 16;
  wide_tp.seq_len = 4096;
  EXPECT_EQ(unvalidated_mechanisms(wide_tp, 8).size(), 1u);
}

TEST(SearchDuplicates, NoTwoReturnedPlansPredictTheSame) {
  const Catalog& cat = default_catalog();
  const Gpu& g = cat.gpu("h100-sxm");
  const TrainContext ctx = make_train_context(cat, cat.model("llama3.1-8b"), g, default_system_for(cat, g), nullptr);
  SearchSpace s;
  s.gpus = 16;
  s.global_batch = 64;
  s.seq_len = 2048;
  SearchOptions o;
  o.top_k = 20;
  o.threads = 2;
  const SearchResult r = search_plans(ctx, s, o);
  ASSERT_EQ(r.top.size(), 20u);
  for (std::size_t i = 0; i < r.top.size(); ++i) {
    for (std::size_t j = i + 1; j < r.top.size(); ++j) {
      EXPECT_FALSE(equivalent_prediction(r.top[i], r.top[j])) << i << " " << j;
    }
  }
  // Pruning never changes the answer (docs/model/search.md), duplicates dropped or not.
  SearchOptions brute = o;
  brute.prune = false;
  const SearchResult b = search_plans(ctx, s, brute);
  ASSERT_EQ(b.top.size(), r.top.size());
  for (std::size_t i = 0; i < r.top.size(); ++i) EXPECT_EQ(b.top[i].score, r.top[i].score) << i;
}

}  // namespace
}  // namespace gpuplan
