// "Why not" for a training plan that cannot run: the nearest single-change plans that can.
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "plan/train_request.h"

namespace gpuplan {
namespace {

TrainRequest llama8b_on_eight() {
  TrainRequest r;
  r.model = "llama3-8b";
  r.gpu = "h100-sxm";
  r.gpus = 8;
  r.seq_len = 2048;
  r.micro_batch = 1;
  return r;
}

// Llama 3 8B under plain DDP on 8 H100s: 16 bytes of weights, gradients and Adam states per
// parameter (128 GB) on every GPU cannot fit in 80 GB. One change away: sharding (ZeRO) or
// model parallelism; each listed plan runs, and they come fastest first.
TEST(NearestPlans, StatesThatDoNotFitOfferShardingOrModelParallelism) {
  const TrainAnswer a = answer_train(default_catalog(), llama8b_on_eight());
  ASSERT_FALSE(a.estimate.feasible());
  ASSERT_FALSE(a.nearest.empty());
  for (std::size_t i = 0; i < a.nearest.size(); ++i) {
    const NearbyPlan& n = a.nearest[i];
    EXPECT_TRUE(evaluate(a.ctx(), n.plan).feasible()) << n.change;
    EXPECT_EQ(n.plan.gpus(), 8) << n.change;  // the same GPUs
    EXPECT_EQ(n.plan.global_batch_seqs(), a.plan().global_batch_seqs()) << n.change;  // the same work
    EXPECT_GT(n.step_time_s, 0) << n.change;
    if (i > 0) {
      EXPECT_GE(n.step_time_s, a.nearest[i - 1].step_time_s) << n.change;
    }
  }
  bool zero = false;
  for (const NearbyPlan& n : a.nearest) zero = zero || n.change.rfind("zero", 0) == 0;
  EXPECT_TRUE(zero);
}

TEST(NearestPlans, AFeasiblePlanHasNone) {
  TrainRequest r = llama8b_on_eight();
  r.zero = 1;
  const TrainAnswer a = answer_train(default_catalog(), r);
  ASSERT_TRUE(a.estimate.feasible()) << a.estimate.reason_text();
  EXPECT_TRUE(a.nearest.empty());
}

}  // namespace
}  // namespace gpuplan
