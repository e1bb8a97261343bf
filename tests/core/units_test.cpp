#include <gtest/gtest.h>

#include "core/error.h"
#include "core/units.h"

namespace gpuplan {
namespace {

TEST(Units, ParsesBinaryAndDecimalSizes) {
  EXPECT_DOUBLE_EQ(parse_bytes("1GiB", "--bytes"), 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_bytes("32MiB", "--bytes"), 33554432.0);
  EXPECT_DOUBLE_EQ(parse_bytes("1.5 GB", "--bytes"), 1.5e9);
  EXPECT_DOUBLE_EQ(parse_bytes("512", "--bytes"), 512.0);
  EXPECT_DOUBLE_EQ(parse_bytes("4kib", "--bytes"), 4096.0);
}

TEST(Units, RejectsBadSizesNamingTheFlag) {
  for (const char* bad : {"", "abc", "-1GiB", "0", "1XB", "nan", "inf", "1e400"}) {
    try {
      parse_bytes(bad, "--bytes");
      FAIL() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--bytes"), std::string::npos) << e.what();
    }
  }
}

TEST(Units, ParsesCountsWithSuffixes) {
  EXPECT_DOUBLE_EQ(parse_count("100B", "--tokens"), 100e9);
  EXPECT_DOUBLE_EQ(parse_count("1.5T", "--tokens"), 1.5e12);
  EXPECT_DOUBLE_EQ(parse_count("2048", "--tokens"), 2048.0);
  EXPECT_THROW(parse_count("12Q", "--tokens"), Error);
}

TEST(Units, FormatsHumanReadably) {
  EXPECT_EQ(format_bytes(80e9), "80.0 GB");
  EXPECT_EQ(format_bytes(32.0 * 1024 * 1024, true), "32.0 MiB");
  EXPECT_EQ(format_si(989.4e12, "FLOP/s"), "989.4 TFLOP/s");
  EXPECT_EQ(format_seconds(65.2e-6), "65.2 us");
}

}  // namespace
}  // namespace gpuplan
