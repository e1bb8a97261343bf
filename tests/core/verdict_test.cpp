#include "core/verdict.h"

#include <string>

#include <gtest/gtest.h>

namespace gpuplan {
namespace {

TEST(Verdict, InfeasibilityKeepsKindAndReason) {
  Infeasibility v;
  EXPECT_TRUE(v.ok());
  EXPECT_STREQ(v.text(), "");
  v.set(Infeasibility::Kind::out_of_memory, "needs 96.0 GiB of 80 GiB; raise --tp");
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.kind(), Infeasibility::Kind::out_of_memory);
  EXPECT_STREQ(v.text(), "needs 96.0 GiB of 80 GiB; raise --tp");
  v.clear();
  EXPECT_TRUE(v.ok());
  EXPECT_STREQ(v.text(), "");
}

TEST(Verdict, LongReasonsAreCutOnACharacterBoundary) {
  // 190 ASCII bytes then "×" (2 bytes, C3 97) crossing the 191-byte limit: the cut must drop
  // the whole character, never leave a lone lead byte.
  const std::string reason = std::string(190, 'a') + "\xC3\x97" + "tail";
  Infeasibility v;
  v.set(Infeasibility::Kind::invalid_plan, reason);
  EXPECT_EQ(std::string(v.text()), std::string(190, 'a'));
  const std::string fits = std::string(189, 'b') + "\xC3\x97";  // exactly 191 bytes: kept whole
  v.set(Infeasibility::Kind::invalid_plan, fits);
  EXPECT_EQ(std::string(v.text()), fits);
}

TEST(Verdict, EveryBottleneckHasItsName) {
  EXPECT_STREQ(bottleneck_name(Bottleneck::compute), "compute");
  EXPECT_STREQ(bottleneck_name(Bottleneck::pipeline_bubble), "pipeline bubble");
  EXPECT_STREQ(bottleneck_name(Bottleneck::memory), "memory (does not fit)");
  EXPECT_STREQ(bottleneck_name(Bottleneck::weights_bandwidth), "weights bandwidth");
  EXPECT_STREQ(bottleneck_name(Bottleneck::capacity), "capacity");
  for (int b = 0; b <= static_cast<int>(Bottleneck::capacity); ++b) {
    EXPECT_STRNE(bottleneck_name(static_cast<Bottleneck>(b)), "?") << b;
  }
}

}  // namespace
}  // namespace gpuplan
