// The fit's loss (plan/fit.h): |ln(predicted / measured)|, capped at 0.35 so an unexplained
// run (or a plan that does not evaluate) weighs no more than a factor e^0.35 ≈ 1.42 off.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/system_choice.h"
#include "plan/fit.h"

namespace gpuplan {
namespace {

TEST(Fit, LossIsTheAbsoluteLogRatio) {
  EXPECT_DOUBLE_EQ(fit_loss(1.0, 1.0), 0.0);
  // 10% slow and 10% fast by ratio: ln(1.1) = 0.0953..., symmetric in the ratio.
  EXPECT_NEAR(fit_loss(1.1, 1.0), 0.0953102, 1e-6);
  EXPECT_NEAR(fit_loss(1.0, 1.1), 0.0953102, 1e-6);
}

TEST(Fit, LossIsCapped) {
  // ln 2 = 0.69 > 0.35: capped.
  EXPECT_DOUBLE_EQ(fit_loss(2.0, 1.0), 0.35);
  EXPECT_DOUBLE_EQ(fit_loss(1.0, 100.0), 0.35);
  // Just under the cap: e^0.3 off counts in full.
  EXPECT_NEAR(fit_loss(std::exp(0.3), 1.0), 0.3, 1e-12);
  // No prediction (an invalid plan) or no measurement: the cap.
  EXPECT_DOUBLE_EQ(fit_loss(0.0, 1.0), 0.35);
  EXPECT_DOUBLE_EQ(fit_loss(1.0, 0.0), 0.35);
}


// The framework figures are fitted on the rows of their framework: step times made with a
// framework with slower attention and element-wise kernels are explained after the fit, and a framework
// whose only rows are left out keeps its figures.
TEST(Fit, FrameworkFiguresAreFittedOnTheirOwnRows) {
  const Catalog& c = default_catalog();
  const Gpu& gpu = c.gpu("h100-sxm");
  const System* system = default_system_for(c, gpu, 8);
  ASSERT_NE(system, nullptr);
  const Framework& base = resolve_framework(c, "torchtitan");
  Framework truth = base;
  truth.attention_scale = base.attention_scale * 0.6;
  truth.memory_scale = base.memory_scale * 0.7;
  std::vector<FitSample> samples;
  for (int mb : {1, 2, 4}) {
    TrainOptions options;
    options.framework = &truth;
    TrainContext ctx = make_train_context(c, c.model("llama3-8b"), gpu, system, nullptr, options);
    Plan p;
    p.dp = 8;
    p.zero = 3;
    p.micro_batch = mb;
    p.global_batch = 64;
    p.seq_len = 8192;
    const Estimate e = evaluate(ctx, p);
    ASSERT_TRUE(e.valid());
    samples.push_back({ctx, p, e.step_time_s, "src", ctx.efficiency->id, base.id});
  }
  // Precondition: the catalog's figures do not explain these step times (slower attention
  // and element-wise kernels at 8K tokens per sequence).
  FitResult catalog_figures{c.efficiencies, c.frameworks};
  for (FitSample& s : samples) EXPECT_GT(std::fabs(predict_with(s, catalog_figures) / s.measured_step_s - 1), 0.03);
  const FitResult fit = fit_efficiencies(samples, c.efficiencies, c.frameworks);
  for (FitSample& s : samples) EXPECT_NEAR(predict_with(s, fit) / s.measured_step_s, 1.0, 0.02);
  const FitResult none = fit_efficiencies(samples, c.efficiencies, c.frameworks, "src");
  for (std::size_t i = 0; i < c.frameworks.size(); ++i) {
    EXPECT_EQ(none.frameworks[i].kernel_launch_s, c.frameworks[i].kernel_launch_s);
    EXPECT_EQ(none.frameworks[i].attention_scale, c.frameworks[i].attention_scale);
  }
}


// A family figure measured on the GPU (`[attention] measured = true`) is not refit: the fit
// leaves it where it is and moves the others, and it is never reported at a bound. Without the
// flag the same rows move it toward the truth.
TEST(Fit, MeasuredAttentionFractionIsKeptByTheFit) {
  const Catalog& c = default_catalog();
  const Gpu& gpu = c.gpu("h100-sxm");
  const System* system = default_system_for(c, gpu, 8);
  ASSERT_NE(system, nullptr);
  std::vector<Efficiency> entries = c.efficiencies;
  Efficiency* hopper = nullptr;
  for (Efficiency& e : entries) {
    if (e.id == "hopper") hopper = &e;
  }
  ASSERT_NE(hopper, nullptr);
  hopper->attention_fwd_fraction = 0.60;
  hopper->attention_bwd_fraction = 0.45;
  Efficiency truth = *hopper;
  truth.attention_fwd_fraction = 0.80;
  truth.attention_bwd_fraction = 0.60;
  std::vector<FitSample> samples;
  for (int seq : {4096, 16384, 32768}) {
    TrainOptions options;
    TrainContext ctx = make_train_context(c, c.model("llama3-8b"), gpu, system, nullptr, options);
    retarget(ctx, truth, ctx.framework);
    Plan p;
    p.dp = 8;
    p.zero = 3;
    p.micro_batch = 1;
    p.global_batch = 64;
    p.seq_len = seq;
    const Estimate e = evaluate(ctx, p);
    ASSERT_TRUE(e.valid());
    samples.push_back({ctx, p, e.step_time_s, "src", "hopper", ctx.framework->id});
  }
  const auto fitted_hopper = [](const FitResult& r) {
    for (const Efficiency& e : r.efficiencies) {
      if (e.id == "hopper") return e;
    }
    return Efficiency{};
  };
  hopper->attention_measured = false;
  const FitResult free_fit = fit_efficiencies(samples, entries, c.frameworks);
  EXPECT_GT(fitted_hopper(free_fit).attention_fwd_fraction, 0.70);  // toward the truth, 0.80
  hopper->attention_measured = true;
  const FitResult pinned = fit_efficiencies(samples, entries, c.frameworks);
  EXPECT_DOUBLE_EQ(fitted_hopper(pinned).attention_fwd_fraction, 0.60);
  EXPECT_DOUBLE_EQ(fitted_hopper(pinned).attention_bwd_fraction, 0.45);
  for (const ConstantAtBound& b : constants_at_bounds(pinned, samples)) {
    EXPECT_FALSE(b.entry == "hopper" && b.constant == "attention_fwd") << b.value;
  }
}

// The fp4 GEMM fraction is a family figure of its own where the family states one (Blackwell):
// NVFP4 step times made with a higher fp4 fraction move it toward the truth, and a family
// without one (Hopper, no fp4 tensor cores) keeps none after the fit.
TEST(Fit, Fp4GemmFractionIsFittedOnFp4Rows) {
  const Catalog& c = default_catalog();
  const Gpu& gpu = c.gpu("b200");
  const System* system = default_system_for(c, gpu, 8);
  ASSERT_NE(system, nullptr);
  const auto entry = [](const std::vector<Efficiency>& entries, const std::string& id) {
    for (const Efficiency& e : entries) {
      if (e.id == id) return e;
    }
    return Efficiency{};
  };
  const Efficiency base = entry(c.efficiencies, "blackwell");
  ASSERT_GT(base.gemm_peak_fraction[index_of(Precision::fp4)], 0);
  ASSERT_EQ(entry(c.efficiencies, "hopper").gemm_peak_fraction[index_of(Precision::fp4)], 0);
  Efficiency truth = base;
  truth.gemm_peak_fraction[index_of(Precision::fp4)] = 0.75;
  std::vector<FitSample> samples;
  // The same plans in bf16 (which the truth leaves at the catalog's figures) pin the other
  // figures: fp4 rows alone cannot tell a faster fp4 GEMM from faster attention.
  for (const Precision precision : {Precision::bf16, Precision::fp4}) {
    for (int mb : {1, 2, 4}) {
      TrainOptions options;
      TrainContext ctx = make_train_context(c, c.model("llama3-8b"), gpu, system, nullptr, options);
      retarget(ctx, truth, ctx.framework);
      Plan p;
      p.dp = 8;
      p.zero = 1;
      p.micro_batch = mb;
      p.global_batch = 64;
      p.seq_len = 4096;
      p.precision = precision;
      p.scaling = default_scaling_recipe(precision);
      const Estimate e = evaluate(ctx, p);
      ASSERT_TRUE(e.valid());
      samples.push_back({ctx, p, e.step_time_s, "src", "blackwell", ctx.framework->id});
    }
  }
  // Precondition: the catalog's fp4 fraction does not explain the fp4 step times.
  FitResult catalog_figures{c.efficiencies, c.frameworks};
  for (FitSample& s : samples) {
    if (s.plan.precision == Precision::fp4) {
      EXPECT_GT(predict_with(s, catalog_figures) / s.measured_step_s - 1, 0.06);
    }
  }
  const FitResult fit = fit_efficiencies(samples, c.efficiencies, c.frameworks);
  const Efficiency fb = entry(fit.efficiencies, "blackwell");
  // Up from the catalog's, toward the truth (0.75) until the fp4 GEMMs stop being compute-bound
  // (beyond that the rows do not see it), and the fp4 rows explained.
  EXPECT_GT(fb.gemm_peak_fraction[index_of(Precision::fp4)], base.gemm_peak_fraction[index_of(Precision::fp4)]);
  for (FitSample& s : samples) {
    if (s.plan.precision == Precision::fp4) {
      EXPECT_NEAR(predict_with(s, fit) / s.measured_step_s, 1.0, 0.03);
    }
  }
  EXPECT_EQ(entry(fit.efficiencies, "hopper").gemm_peak_fraction[index_of(Precision::fp4)], 0);
}

// A figure is fitted, and reported at a bound, only where some fitted row's prediction moves
// with it. Llama 3 8B at 8,192 tokens per micro-batch is GPU-bound at any host time per kernel
// in the fit's range (2-60 us: its GEMMs run for milliseconds), so a framework host time at
// the 60 us bound is not seen by its rows: not identified, not at a bound; GPT-2 (124M
// parameters) at 256 tokens is host-bound (its kernels run for microseconds), so the same
// figure is seen and at its bound.
TEST(Fit, ConstantNoRowSeesIsNotIdentifiedNotAtBound) {
  const Catalog& c = default_catalog();
  const Gpu& gpu = c.gpu("h100-sxm");
  const System* system = default_system_for(c, gpu, 8);
  ASSERT_NE(system, nullptr);
  Framework at_bound = resolve_framework(c, "torchtitan");
  at_bound.kernel_launch_s = 60e-6;  // the fit's upper bound
  FitResult fitted{c.efficiencies, c.frameworks};
  for (Framework& f : fitted.frameworks) {
    if (f.id == at_bound.id) f = at_bound;
  }
  const auto samples_of = [&](const char* model, int seq, int micro_batch) {
    std::vector<FitSample> samples;
    TrainOptions options;
    options.framework = &at_bound;
    TrainContext ctx = make_train_context(c, c.model(model), gpu, system, nullptr, options);
    Plan p;
    p.dp = 8;
    p.zero = 3;
    p.micro_batch = micro_batch;
    p.global_batch = 8 * micro_batch;
    p.seq_len = seq;
    const Estimate e = evaluate(ctx, p);
    EXPECT_TRUE(e.valid());
    samples.push_back({ctx, p, e.step_time_s, "src", ctx.efficiency->id, at_bound.id});
    return samples;
  };
  const auto launch_at_bound = [&](const std::vector<ConstantAtBound>& bounds) {
    return std::count_if(bounds.begin(), bounds.end(), [&](const ConstantAtBound& b) {
      return b.entry == at_bound.id && b.constant == "kernel_launch_s" && b.upper;
    });
  };
  const auto launch_unidentified = [&](const std::vector<UnidentifiedConstant>& list) {
    return std::count_if(list.begin(), list.end(), [&](const UnidentifiedConstant& u) {
      return u.entry == at_bound.id && u.constant == "kernel_launch_s";
    });
  };
  const std::vector<FitSample> big = samples_of("llama3-8b", 8192, 1);
  EXPECT_EQ(launch_at_bound(constants_at_bounds(fitted, big)), 0);
  EXPECT_EQ(launch_unidentified(constants_not_identified(fitted, big)), 1);
  const std::vector<FitSample> small = samples_of("gpt2", 256, 1);
  EXPECT_EQ(launch_at_bound(constants_at_bounds(fitted, small)), 1);
  EXPECT_EQ(launch_unidentified(constants_not_identified(fitted, small)), 0);
}

// The fit leaves a figure no row sees at its committed value (the rows carry no information on
// it), whatever the search's grid would have made of a flat loss: the host time per kernel of
// GPU-bound Llama 3 8B rows stays 33 us.
TEST(Fit, UnseenFigureKeepsItsCommittedValue) {
  const Catalog& c = default_catalog();
  const Gpu& gpu = c.gpu("h100-sxm");
  const System* system = default_system_for(c, gpu, 8);
  ASSERT_NE(system, nullptr);
  std::vector<Framework> frameworks = c.frameworks;
  Framework* fw = nullptr;
  for (Framework& f : frameworks) {
    if (f.id == resolve_framework(c, "torchtitan").id) fw = &f;
  }
  ASSERT_NE(fw, nullptr);
  fw->kernel_launch_s = 33e-6;
  TrainOptions options;
  options.framework = fw;
  TrainContext ctx = make_train_context(c, c.model("llama3-8b"), gpu, system, nullptr, options);
  Plan p;
  p.dp = 8;
  p.zero = 3;
  p.micro_batch = 1;
  p.global_batch = 8;
  p.seq_len = 8192;
  const Estimate e = evaluate(ctx, p);
  ASSERT_TRUE(e.valid());
  std::vector<FitSample> samples{{ctx, p, e.step_time_s * 1.1, "src", ctx.efficiency->id, fw->id}};
  const FitResult fitted = fit_efficiencies(samples, c.efficiencies, frameworks);
  for (const Framework& f : fitted.frameworks) {
    if (f.id == fw->id) {
      EXPECT_DOUBLE_EQ(f.kernel_launch_s, 33e-6);
    }
  }
}

}  // namespace
}  // namespace gpuplan
