// The fit's loss (plan/fit.h): |ln(predicted / measured)|, capped at 0.35 so an unexplained
// run (or a plan that does not evaluate) weighs no more than a factor e^0.35 ≈ 1.42 off.
#include <cmath>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gpuplan
