// The CLI end to end, in process.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

TEST(Cli, UnknownGpuExitsTwoWithSuggestions) {
  const auto r = run({"gpu", "h10"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown GPU 'h10'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("h100-sxm"), std::string::npos) << r.err;
}

TEST(Cli, UnknownOptionExitsTwo) { EXPECT_EQ(run({"gpus", "--bogus"}).code, 2); }

TEST(Cli, GpuJsonHasUnitSuffixedKeys) {
  const auto r = run({"gpu", "h100-sxm", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["hbm_bytes"].get<double>(), 80e9);
  EXPECT_DOUBLE_EQ(j["hbm_bw_bytes_per_s"].get<double>(), 3.35e12);
  EXPECT_NEAR(j["bf16_dense_flops_per_s"].get<double>(), 989.4e12, 1e9);
  EXPECT_DOUBLE_EQ(j["cuda_cores"].get<double>(), 16896);
  EXPECT_NEAR(j["derived"]["ridge_point_flops_per_byte"]["bf16"].get<double>(), 295.3, 0.5);
}

TEST(Cli, GpuTextShowsDerivedFigures) {
  const auto r = run({"gpu", "H100"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("16,896 CUDA cores"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("26.9 TFLOP/s"), std::string::npos) << r.out;
}

TEST(Cli, GpusListsTheCatalog) {
  const auto r = run({"gpus", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["count"].get<int>(), 1);
  EXPECT_EQ(run({"gpus", "--vendor", "nvidiaa"}).code, 2);
}

TEST(Cli, CatalogOverrideReplacesAnEntry) {
  auto dir = testing::scratch_dir("override");
  const std::string text = R"toml(kind = "link"
id = "nvlink4"
name = "NVLink 4 (derated)"
family = "nvlink"
per_link_bw_uni_gb_per_s = 20
source = "test"
retrieved = "2026-11-22"
)toml";
  testing::write_file(dir / "nvlink.toml", text);
  const auto ok = run({"--catalog", dir.string(), "gpus"});
  EXPECT_EQ(ok.code, 0) << ok.err;
  testing::write_file(dir / "bad.toml", "kind = \"link\"\nid = 3\n");
  const auto bad = run({"--catalog", dir.string(), "gpus"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("bad.toml"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace gpuplan
