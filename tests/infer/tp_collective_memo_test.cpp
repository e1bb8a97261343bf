// The collective memo of infer-search (infer/tp_collective_memo.h): the search's answers with
// it are bit-for-bit those of costing every collective, and a copy of the context never reads
// a memo made for another.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/catalog.h"
#include "infer/infer_test_util.h"
#include "infer/search.h"
#include "infer/step.h"
#include "infer/tp_collective_memo.h"

namespace gpuplan {
namespace {

using testing::infer_context;

TEST(TpCollectiveMemo, FindsWhatWasStoredAndNothingElse) {
  TpCollectiveMemo memo(nullptr);
  EXPECT_EQ(memo.find(0, 1e6, 8), nullptr);
  memo.store(0, 1e6, 8, 2.5e-5);
  ASSERT_NE(memo.find(0, 1e6, 8), nullptr);
  EXPECT_EQ(*memo.find(0, 1e6, 8), 2.5e-5);
  EXPECT_EQ(memo.find(1, 1e6, 8), nullptr);              // another op
  EXPECT_EQ(memo.find(0, 1e6, 4), nullptr);              // another group
  EXPECT_EQ(memo.find(0, std::nextafter(1e6, 2e6), 8), nullptr);  // bytes differ in the last bit
}

// Every plan of a dense and a MoE search: the estimate with the memo (filled as the search
// fills it, plan after plan) equals the one without, to the bit.
TEST(TpCollectiveMemo, SearchAnswersAreBitIdenticalWithoutTheMemo) {
  for (const auto& [model, engine] : {std::pair{"llama3.1-70b", "vllm"}, std::pair{"mixtral-8x7b", "tensorrt-llm"}}) {
    const InferContext plain = infer_context(model, "h100-sxm", engine);
    InferContext memoised = plain;
    TpCollectiveMemo memo(&memoised);
    memoised.collective_memo = &memo;
    InferSearchSpec spec;
    spec.gpus_max = 8;
    spec.input_len = 1024;
    spec.output_len = 256;
    int compared = 0;
    for (const InferPlan& p : infer_search_space(plain, spec)) {
      const InferEstimate a = evaluate_inference(plain, p);
      const InferEstimate b = evaluate_inference(memoised, p);
      ASSERT_EQ(a.feasible, b.feasible);
      if (!a.feasible) continue;
      EXPECT_EQ(a.point.ttft_s, b.point.ttft_s) << model << " tp " << p.tp << " pp " << p.pp << " c " << p.load;
      EXPECT_EQ(a.point.tpot_s, b.point.tpot_s) << model << " tp " << p.tp << " pp " << p.pp << " c " << p.load;
      EXPECT_EQ(a.point.step.comm_s, b.point.step.comm_s);
      EXPECT_EQ(a.output_tokens_per_s, b.output_tokens_per_s);
      ++compared;
    }
    EXPECT_GT(compared, 100) << model;
    const InferSearchResult r = infer_search(plain, spec);
    ASSERT_TRUE(r.found) << r.reason;
    EXPECT_EQ(r.estimate.output_tokens_per_s, evaluate_inference(plain, r.plan).output_tokens_per_s);
  }
}

// A memo answers only the context it was made for: a copy (which may differ) costs afresh.
TEST(TpCollectiveMemo, IsIgnoredByACopyOfTheContext) {
  InferContext owner = infer_context("llama3.1-70b", "h100-sxm");
  TpCollectiveMemo memo(&owner);
  owner.collective_memo = &memo;
  const double real = tp_collective_s(owner, CollectiveOp::all_reduce, 1e6, 8);
  ASSERT_GT(real, 0);
  memo.store(static_cast<int>(CollectiveOp::all_reduce), 1e6, 8, 123.0);  // a planted wrong value
  EXPECT_EQ(tp_collective_s(owner, CollectiveOp::all_reduce, 1e6, 8), 123.0);
  const InferContext copy = owner;  // carries the pointer, not the ownership
  EXPECT_EQ(tp_collective_s(copy, CollectiveOp::all_reduce, 1e6, 8), real);
}

}  // namespace
}  // namespace gpuplan
