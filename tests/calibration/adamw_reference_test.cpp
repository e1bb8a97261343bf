// The AdamW reference and its check: the update derived by hand, bf16 rounding, and a check
// that accepts fp32 arithmetic (what the device does) and refuses the usual mistakes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "bench_support/adamw_reference.h"

namespace gpuplan {
namespace {

const AdamWConfig kConfig{1e-3, 0.9, 0.95, 1e-8, 0.1};

TEST(AdamWReference, FirstStepFromZeroMovesByLrTimesTheSignPlusDecay) {
  // Step 1 from m = v = 0: m = (1−β1)·g, v = (1−β2)·g², and the bias corrections undo the
  // (1−β) factors, so m̂ = g, v̂ = g² and p ← p − lr·(g / (|g| + eps) + wd·p).
  const AdamWFactors f = adamw_factors(kConfig, 1);
  EXPECT_NEAR(f.bias_correction1, 0.1, 1e-15);
  EXPECT_NEAR(f.bias_correction2, 0.05, 1e-15);
  const AdamWElement e = adamw_reference({2.0, 0, 0}, -0.5, f, true);
  EXPECT_NEAR(e.m, -0.05, 1e-15);
  EXPECT_NEAR(e.v, 0.0125, 1e-15);
  EXPECT_NEAR(e.param, 2.0 - 1e-3 * (-0.5 / (0.5 + 1e-8) + 0.1 * 2.0), 1e-15);
  // A norm weight takes no decay.
  EXPECT_NEAR(adamw_reference({2.0, 0, 0}, -0.5, f, false).param, 2.0 + 1e-3 * 0.5 / (0.5 + 1e-8), 1e-15);
}

TEST(AdamWReference, LaterStepsUseTheMomentsAndBiasCorrections) {
  // Step 3 from m = 0.01, v = 4e-4, g = 0.02: m = 0.009 + 0.002 = 0.011; v = 3.8e-4 + 2e-5
  // = 4e-4; m̂ = 0.011 / (1 − 0.9³) = 0.011 / 0.271; v̂ = 4e-4 / (1 − 0.95³) = 4e-4 / 0.142625.
  const AdamWElement e = adamw_reference({1.0, 0.01, 4e-4}, 0.02, adamw_factors(kConfig, 3), true);
  EXPECT_NEAR(e.m, 0.011, 1e-15);
  EXPECT_NEAR(e.v, 4e-4, 1e-15);
  const double step = (0.011 / 0.271) / (std::sqrt(4e-4 / 0.142625) + 1e-8) + 0.1;
  EXPECT_NEAR(e.param, 1.0 - 1e-3 * step, 1e-14);
}

TEST(AdamWReference, Bf16RoundsToNearestEven) {
  // bf16 keeps 7 mantissa bits: between 1 and 2 its step is 2^-7.
  EXPECT_EQ(round_to_bf16(1.0f), 1.0f);
  EXPECT_EQ(round_to_bf16(1.0f + 0x1p-8f), 1.0f);                  // halfway: to the even 1.0
  EXPECT_EQ(round_to_bf16(1.0f + 3 * 0x1p-8f), 1.0f + 0x1p-6f);    // halfway: to the even 1 + 2^-6
  EXPECT_EQ(round_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);  // past halfway: up
  EXPECT_EQ(round_to_bf16(-1.0f - 0x1p-9f), -1.0f);
  EXPECT_TRUE(std::isnan(round_to_bf16(NAN)));
  EXPECT_TRUE(std::isinf(round_to_bf16(INFINITY)));
}

// A device's update: the same formula in fp32 with the factors rounded to fp32, as the CUDA
// kernel computes it; `mistake` breaks it the way a kernel might.
AdamWArrays device_update(const AdamWArrays& before, const std::vector<float>& grad, int step, std::size_t decayed,
                          std::vector<float>& bf16, const std::string& mistake = "") {
  const AdamWFactors d = adamw_factors(kConfig, step);
  const auto f = [](double v) { return static_cast<float>(v); };
  AdamWArrays after = before;
  bf16.resize(grad.size());
  for (std::size_t i = 0; i < grad.size(); ++i) {
    const float g = grad[i];
    const float m = f(d.beta1) * before.m[i] + f(d.one_minus_beta1) * g;
    const float v = f(d.beta2) * before.v[i] + f(d.one_minus_beta2) * g * g;
    const float bc1 = mistake == "no bias correction" ? 1.0f : f(d.bias_correction1);
    const float bc2 = mistake == "no bias correction" ? 1.0f : f(d.bias_correction2);
    const float decay = i < decayed || mistake == "decay everywhere" ? f(d.weight_decay) : 0.0f;
    const float p = before.param[i];
    const float update = (m / bc1) / (std::sqrt(v / bc2) + f(d.eps)) + decay * p;
    after.m[i] = m;
    after.v[i] = v;
    after.param[i] = p - f(d.lr) * update * (mistake == "twice" ? 2.0f : 1.0f);
    bf16[i] = mistake == "stale bf16" ? round_to_bf16(p) : round_to_bf16(after.param[i]);
  }
  return after;
}

TEST(AdamWReference, CheckAcceptsFp32ArithmeticAndRefusesMistakes) {
  // Parameters and state as gpuplan-bench draws them; gradients over six orders of magnitude,
  // some cancelling the momentum.
  const std::size_t n = 4096, decayed = 3000;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(-1, 1);
  AdamWArrays before;
  std::vector<float> grad(n);
  for (std::size_t i = 0; i < n; ++i) {
    before.param.push_back(uniform(rng) * 0.0625f + (i >= decayed ? 1.0f : 0.0f));
    before.m.push_back(uniform(rng) * 0x1p-10f);
    before.v.push_back(uniform(rng) * 0x1p-21f + 0x1p-20f);
    grad[i] = uniform(rng) * std::pow(10.0f, -static_cast<float>(i % 6)) * 0x1p-4f;
  }
  grad[7] = -before.m[7] * 9;  // β1·m + (1−β1)·g = 0: the new m cancels
  std::vector<float> bf16;
  const AdamWArrays after = device_update(before, grad, 3, decayed, bf16);
  const AdamWCheck good = check_adamw_against_reference(kConfig, 3, decayed, grad, before, after, bf16);
  EXPECT_TRUE(good.correct) << good.check;
  EXPECT_NE(good.check.find("0 bf16 copies"), std::string::npos) << good.check;

  for (const char* mistake : {"no bias correction", "decay everywhere", "twice", "stale bf16"}) {
    const AdamWArrays wrong = device_update(before, grad, 3, decayed, bf16, mistake);
    const AdamWCheck bad = check_adamw_against_reference(kConfig, 3, decayed, grad, before, wrong, bf16);
    EXPECT_FALSE(bad.correct) << mistake << ": " << bad.check;
  }
  // The step number matters (bias corrections), and NaN anywhere fails.
  EXPECT_FALSE(check_adamw_against_reference(kConfig, 4, decayed, grad, before, after, bf16).correct);
  AdamWArrays nan = after;
  nan.v[100] = NAN;
  EXPECT_FALSE(check_adamw_against_reference(kConfig, 3, decayed, grad, before, nan, bf16).correct);
}

}  // namespace
}  // namespace gpuplan
