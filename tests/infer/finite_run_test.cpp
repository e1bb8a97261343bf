// The benchmark's finite request count (infer/finite_run.h): the arithmetic by hand, one run
// derived by hand from the step costs, and the property that the ramp-up and drain fade as the
// dataset grows.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "infer_test_util.h"
#include "infer/evaluate.h"
#include "infer/finite_run.h"
#include "infer/sim_engine.h"
#include "infer/step.h"

namespace gpuplan {
namespace {

using testing::cat;

InferPlan finite_plan(std::int64_t in, std::int64_t out) { return testing::fp8_plan(in, out, InferMode::max_throughput); }

InferContext finite_ctx() {
  return make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h200-sxm"), cat().engine("tensorrt-llm-1.0"));
}

// T(N) = N·τ + Δ and T(4N) = 4N·τ + Δ. With T(N) = 10 s and T(4N) = 34 s: 3N·τ = 24 s, so the
// N requests take N·τ = 8 s at the steady rate and Δ = 2 s is the ramp-up and drain; the
// benchmark measures 8 / 10 = 0.8 of the steady state's tokens/s.
TEST(FiniteRun, ArithmeticHandChecked) {
  const FiniteRun r = finite_run_of(3000, 10, 34);
  EXPECT_EQ(r.requests, 3000);
  EXPECT_DOUBLE_EQ(r.steady_s, 8);
  EXPECT_DOUBLE_EQ(r.factor, 0.8);
  // Nothing to scale by: no run, or a long run no longer than the short one.
  EXPECT_EQ(finite_run_of(3000, 0, 34).factor, 1);
  EXPECT_EQ(finite_run_of(3000, 10, 9).factor, 1);
  EXPECT_EQ(finite_run_of(3000, 10, 34, 1).factor, 1);
}

// Two and eight requests of 1,024 + 8 tokens both fit one wave (8 × 1,024 = 8,192 prompt tokens,
// the engine's max_num_tokens): one prefill step of every prompt, then 7 decode steps of the
// whole batch. So T(2) = prefill(2,048) + 7 decodes at batch 2, T(8) = prefill(8,192) + 7 decodes
// at batch 8, and the factor is (T(8) − T(2)) / 3 / T(2): below 1, a wave of 2 pays nearly the
// step's fixed cost (the weights streamed) of a wave of 8 for a quarter of its tokens.
TEST(FiniteRun, OneWaveHandChecked) {
  const InferContext ctx = finite_ctx();
  const InferPlan plan = finite_plan(1024, 8);
  ASSERT_EQ(ctx.engine->request_overhead_s, 0);
  ASSERT_EQ(ctx.engine->max_num_batched_tokens, 8192);
  const auto wave = [&](double n) {
    double s = step_cost(ctx, plan, {0, 0, n * 1024, 1024}).total_s;
    for (int k = 1; k <= 7; ++k) s += step_cost(ctx, plan, {n, 1024.0 + k, 0, 0}).total_s;
    return s;
  };
  const double t2 = wave(2);
  const double t8 = wave(8);
  const FiniteRun r = simulate_finite_run(ctx, plan, infer_memory(ctx, plan), 2);
  EXPECT_NEAR(r.run_s, t2, 1e-3 * t2);  // decode context interpolated on the memo's grid
  EXPECT_NEAR(r.long_run_s, t8, 1e-3 * t8);
  EXPECT_NEAR(r.factor, (t8 - t2) / 3 / t2, 2e-3);
  EXPECT_LT(r.factor, 1);
}

// More requests, the same ramp-up and drain: their share of the run, and so the factor's
// distance from 1, shrinks.
TEST(FiniteRun, RampAndDrainFadeAsTheDatasetGrows) {
  const InferContext ctx = finite_ctx();
  const InferPlan plan = finite_plan(128, 128);
  const InferMemory mem = infer_memory(ctx, plan);
  const double small = simulate_finite_run(ctx, plan, mem, 256).factor;
  const double large = simulate_finite_run(ctx, plan, mem, 4096).factor;
  EXPECT_LT(small, 1);
  EXPECT_GT(large, small);
  EXPECT_LE(large, 1 + 1e-9);
}

}  // namespace
}  // namespace gpuplan
