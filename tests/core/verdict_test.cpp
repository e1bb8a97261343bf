#include "core/verdict.h"

#include <array>
#include <cstring>
#include <string>

#include "core/short_copy.h"

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

// short_copy (core/short_copy.h, Infeasibility::set's copy): every length from 0 to 300 at
// every alignment gives std::memcpy's bytes and writes nothing past the length.
TEST(Verdict, ShortCopyIsMemcpyAtEveryLengthAndAlignment) {
  std::array<unsigned char, 320> src{};
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
  for (std::size_t offset = 0; offset < 16; ++offset) {
    for (std::size_t n = 0; n + offset <= 300; ++n) {
      std::array<unsigned char, 320> want{};
      std::array<unsigned char, 320> got{};
      want.fill(0xEE);
      got.fill(0xEE);
      std::memcpy(want.data() + offset, src.data() + offset, n);
      short_copy(got.data() + offset, src.data() + offset, n);
      ASSERT_EQ(want, got) << "length " << n << ", offset " << offset;
    }
  }
}

TEST(Verdict, EveryReasonLengthIsKeptWhole) {
  for (std::size_t n = 0; n < Infeasibility::kCapacity; ++n) {
    std::string reason(n, 'x');
    for (std::size_t i = 0; i < n; ++i) reason[i] = static_cast<char>('a' + i % 26);
    Infeasibility v;
    v.set(Infeasibility::Kind::out_of_memory, reason);
    ASSERT_EQ(std::string(v.text()), reason) << "length " << n;
  }
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
