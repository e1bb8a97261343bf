#include <gtest/gtest.h>

#include "core/strings.h"

namespace gpuplan {
namespace {

TEST(Strings, EditDistance) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("h100", "h100"), 0u);
}

TEST(Strings, NearestNamesPrefersPrefixes) {
  const std::vector<std::string> names{"a100-sxm-80gb", "h100-sxm", "h100-pcie", "h200-sxm", "b200"};
  const auto near = nearest_names("h100", names, 2);
  ASSERT_EQ(near.size(), 2u);
  EXPECT_EQ(near[0], "h100-sxm");
  EXPECT_EQ(near[1], "h100-pcie");
  const auto typo = nearest_names("h10", names, 1);
  EXPECT_EQ(typo[0], "h100-sxm");
}

TEST(Strings, NormalizesNames) { EXPECT_EQ(normalize_name("H100 SXM_5"), "h100-sxm-5"); }

TEST(Strings, UnknownNameMessageSuggests) {
  const auto msg = unknown_name_message("GPU", "h10", {"h100-sxm", "b200"});
  EXPECT_NE(msg.find("unknown GPU 'h10'"), std::string::npos);
  EXPECT_NE(msg.find("did you mean h100-sxm"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan
