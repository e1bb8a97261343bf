// `gpuplan systems`, `gpuplan system NAME` and `gpuplan clouds`, end to end in process.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

TEST(SystemsCli, ListsSystemsAndFabrics) {
  const auto r = run({"systems", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["count"].get<int>(), 5);
  EXPECT_EQ(j["systems"].size(), j["count"].get<std::size_t>());
  EXPECT_FALSE(j["fabrics"].empty());
  const auto text = run({"systems"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("gb200-nvl72"), std::string::npos);
  EXPECT_NE(text.out.find("18 x nvswitch4 (9 trays)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("dgx-superpod-h100"), std::string::npos);
}

TEST(SystemsCli, SystemJsonHasTheDerivedFigures) {
  const auto r = run({"system", "HGX H100", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["id"], "dgx-h100");
  EXPECT_DOUBLE_EQ(j["scaleup_bw_uni_bytes_per_s"].get<double>(), 450e9);
  EXPECT_DOUBLE_EQ(j["derived"]["total_node_bw_bytes_per_s"].get<double>(), 3.6e12);
  EXPECT_DOUBLE_EQ(j["derived"]["bisection_bw_bytes_per_s"].get<double>(), 3.6e12);
  EXPECT_DOUBLE_EQ(j["derived"]["scaleout_bw_uni_bytes_per_s_per_gpu"].get<double>(), 50e9);
  EXPECT_EQ(j["derived"]["fabrics"][0], "dgx-superpod-h100");
}

TEST(SystemsCli, SystemTextShowsTotalsAndBisection) {
  const auto r = run({"system", "dgx-h100"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("total node GPU bandwidth    3.6 TB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bisection bandwidth         3.6 TB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("50 GB/s per GPU"), std::string::npos) << r.out;
}

TEST(SystemsCli, FabricShowsEachLevel) {
  const auto r = run({"system", "superpod-h100", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "fabric");
  ASSERT_EQ(j["levels"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["levels"][0]["bw_per_gpu_uni_bytes_per_s"].get<double>(), 450e9);
  EXPECT_DOUBLE_EQ(j["levels"][1]["bw_uni_bytes_per_s"].get<double>(), 12.8e12);
  EXPECT_DOUBLE_EQ(j["levels"][1]["bw_per_gpu_uni_bytes_per_s"].get<double>(), 50e9);
  EXPECT_DOUBLE_EQ(j["levels"][2]["bw_uni_bytes_per_s"].get<double>(), 51.2e12);
  const auto text = run({"system", "dgx-superpod-h100"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("12.8 TB/s"), std::string::npos) << text.out;
}

TEST(SystemsCli, UnknownSystemExitsTwoWithSuggestions) {
  const auto r = run({"system", "dgx-h10"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown system or fabric 'dgx-h10'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dgx-h100"), std::string::npos) << r.err;
}

TEST(SystemsCli, CloudsCurrentByDefaultAllWithHistory) {
  const auto current = run({"clouds", "--gpu", "h100", "--provider", "AWS", "--json"});
  ASSERT_EQ(current.code, 0) << current.err;
  const auto j = nlohmann::json::parse(current.out);
  ASSERT_GE(j["count"].get<int>(), 1);
  for (const auto& o : j["offers"]) {
    EXPECT_EQ(o["gpu"], "h100-sxm");
    EXPECT_EQ(o["provider"], "aws");
    EXPECT_FALSE(o["historical"].get<bool>());
    EXPECT_EQ(o["price_date"].get<std::string>().size(), 10u);
  }
  const auto all = nlohmann::json::parse(run({"clouds", "--gpu", "h100", "--provider", "aws", "--all", "--json"}).out);
  EXPECT_GT(all["count"].get<int>(), j["count"].get<int>());
  bool stale = false;
  for (const auto& o : all["offers"]) stale = stale || o["usd_per_hour"].get<double>() == 98.32;
  EXPECT_TRUE(stale);
  // Cheapest first within a GPU.
  for (std::size_t i = 1; i < j["offers"].size(); ++i) {
    EXPECT_LE(j["offers"][i - 1]["usd_per_gpu_hour"].get<double>(), j["offers"][i]["usd_per_gpu_hour"].get<double>());
  }
  const auto text = run({"clouds"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("p5.48xlarge"), std::string::npos);
  EXPECT_EQ(text.out.find("98.32"), std::string::npos);
}

TEST(SystemsCli, CloudsBadFilters) {
  const auto provider = run({"clouds", "--provider", "awz"});
  EXPECT_EQ(provider.code, 2);
  EXPECT_NE(provider.err.find("known providers: aws, azure"), std::string::npos) << provider.err;
  const auto gpu = run({"clouds", "--gpu", "h10"});
  EXPECT_EQ(gpu.code, 2);
  EXPECT_NE(gpu.err.find("h100-sxm"), std::string::npos) << gpu.err;
}

}  // namespace
}  // namespace gpuplan
