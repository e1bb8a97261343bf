// ReasonText (core/reason_text.h) must write exactly what snprintf writes for the same format:
// the training evaluator's out-of-memory reasons are compared with golden outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "core/reason_text.h"

namespace gpuplan {
namespace {

std::string printf_fixed1(double v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string text_fixed1(double v) {
  ReasonText t;
  t.fixed(v, 1);
  return std::string(t.view());
}

TEST(ReasonText, FixedMatchesPrintfIncludingTies) {
  // Decimal ties are rarely exact in binary: 0.25 and 2.5 are (round half to even: 0.2, 2.5),
  // 0.35 and 1.05 are not (their binary values lie below or above the tie).
  for (double v : {0.0, -0.0, 0.05, 0.25, 0.35, 0.45, 1.05, 2.25, 2.5, 79.6, 79.65, 1e-9, 123456.75, 1e20, 1e300,
                   -3.25, 95.5 / 1.0737418240}) {
    EXPECT_EQ(text_fixed1(v), printf_fixed1(v)) << v;
  }
  // GiB figures as the evaluator prints them: bytes / 2^30 over a wide grid.
  constexpr double gib = 1024.0 * 1024 * 1024;
  for (double bytes = 1; bytes < 1e15; bytes = bytes * 1.37 + 7) {
    ASSERT_EQ(text_fixed1(bytes / gib), printf_fixed1(bytes / gib)) << bytes;
  }
  for (int i = 0; i < 200000; ++i) {
    const double v = i / 20.0;  // every x.x5, the would-be ties
    ASSERT_EQ(text_fixed1(v), printf_fixed1(v)) << v;
  }
}

TEST(ReasonText, BuildsTheEvaluatorsMessage) {
  ReasonText t;
  t.text("needs ").fixed(95.04, 1).text(" GiB per GPU (pipeline rank ").integer(3).text("), ").fixed(79.6, 1);
  t.text(" GiB usable");
  char buf[192];
  std::snprintf(buf, sizeof buf, "needs %.1f GiB per GPU (pipeline rank %d), %.1f GiB usable", 95.04, 3, 79.6);
  EXPECT_EQ(std::string(t.view()), std::string(buf));
  EXPECT_EQ(std::string(t.view()), "needs 95.0 GiB per GPU (pipeline rank 3), 79.6 GiB usable");
}

TEST(ReasonText, DropsWhatDoesNotFit) {
  ReasonText t;
  const std::string long_text(600, 'x');
  t.text(long_text).fixed(1.5, 1).integer(7);
  EXPECT_EQ(t.view().size(), 512U);
  EXPECT_EQ(t.view(), std::string(512, 'x'));
}

}  // namespace
}  // namespace gpuplan
