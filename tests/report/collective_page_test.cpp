// The collectives page's report (report/collective_page.h): the regions are the runs of sizes
// one algorithm/protocol answers, the sentence carries the sweep's own figures, and
// `collective --html` embeds the same data.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/collective_page.h"
#include "report/human_units.h"
#include "report/web_assets.h"
#include "test_util.h"

namespace gpuplan {
namespace {

const std::vector<std::string> kSweepArgs = {"collective", "--op", "allreduce", "--gpus", "16", "--system", "dgx-h100", "--sweep"};

TEST(CollectivePage, RegionsAreRunsOfOneAlgorithmAndProtocol) {
  const auto rows = nlohmann::ordered_json::parse(R"([
    {"bytes": 512, "algorithm": "tree", "protocol": "LL"},
    {"bytes": 1024, "algorithm": "tree", "protocol": "LL"},
    {"bytes": 2048, "algorithm": "ring", "protocol": "LL128"},
    {"bytes": 4096, "algorithm": "nvls", "protocol": "Simple"},
    {"bytes": 8192, "algorithm": "nvls", "protocol": "Simple"},
    {"bytes": 16384, "algorithm": "nvls", "protocol": "Simple"}])");
  const std::vector<CollectiveRegion> r = collective_regions(rows);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].algorithm, "tree");
  EXPECT_EQ(r[0].from_bytes, 512);
  EXPECT_EQ(r[0].to_bytes, 1024);
  EXPECT_EQ(r[1].protocol, "LL128");
  EXPECT_EQ(r[1].from_bytes, 2048);
  EXPECT_EQ(r[1].to_bytes, 2048);
  EXPECT_EQ(r[2].from_bytes, 4096);
  EXPECT_EQ(r[2].to_bytes, 16384);
  EXPECT_TRUE(collective_regions(nlohmann::ordered_json::array()).empty());
}

nlohmann::json collective_report_of(std::vector<std::string> args) {
  args.emplace_back("--report-data");
  const auto r = testing::run(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(CollectivePage, TheSweepsSentenceCarriesItsFiguresAndRegions) {
  const nlohmann::json data = collective_report_of(kSweepArgs);
  EXPECT_EQ(data.at("kind"), "collective");
  const nlohmann::json& rows = data.at("answer").at("rows");
  ASSERT_GT(rows.size(), 10u);
  const std::string headline = data.at("headline");
  const nlohmann::json& large = rows.back();
  EXPECT_NE(headline.find(human_number(large.at("busbw_bytes_per_s").get<double>() / 1e9) + " GB/s bus bandwidth at " +
                          human_bytes(large.at("bytes").get<double>())),
            std::string::npos)
      << headline;
  EXPECT_NE(headline.find("the smallest message (512 bytes) takes " + human_seconds(rows.front().at("time_s").get<double>())),
            std::string::npos)
      << headline;
  EXPECT_NE(headline.find("between nodes over " + data.at("answer").at("transport").at("name").get<std::string>()),
            std::string::npos)
      << headline;
  // The regions tile the sweep in order: each starts one size after the last ended.
  const nlohmann::json& regions = data.at("regions");
  ASSERT_GE(regions.size(), 2u);
  EXPECT_EQ(regions.front().at("from_bytes"), rows.front().at("bytes"));
  EXPECT_EQ(regions.back().at("to_bytes"), rows.back().at("bytes"));
  for (std::size_t i = 1; i < regions.size(); ++i) {
    EXPECT_EQ(regions[i].at("from_bytes").get<double>(), 2 * regions[i - 1].at("to_bytes").get<double>());
    EXPECT_NE(headline.find(regions[i].at("label").get<std::string>()), std::string::npos) << headline;
  }
  // --json is unchanged by --report-data.
  std::vector<std::string> json_args = kSweepArgs;
  json_args.emplace_back("--json");
  const auto plain = testing::run(json_args);
  ASSERT_EQ(plain.code, 0);
  EXPECT_EQ(data.at("answer"), nlohmann::json::parse(plain.out));
}

TEST(CollectivePage, HtmlEmbedsTheReportData) {
  if (!web_assets().built) GTEST_SKIP() << web_assets_missing_message();
  const auto path = testing::scratch_dir("html-collective") / "collective.html";
  std::vector<std::string> args = kSweepArgs;
  args.insert(args.end(), {"--html", path.string()});
  const auto r = testing::run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  const std::string page = s.str();
  EXPECT_NE(page.find("<title>AllReduce over 16 GPUs on dgx-h100: bus bandwidth against message size</title>"),
            std::string::npos);
  const std::string open = R"(<script id="gpuplan-data" type="application/json">)";
  const std::size_t at = page.find(open);
  ASSERT_NE(at, std::string::npos);
  const auto data = nlohmann::json::parse(page.substr(at + open.size(), page.find("</script>", at) - at - open.size()));
  EXPECT_EQ(data, collective_report_of(kSweepArgs));
}

}  // namespace
}  // namespace gpuplan
