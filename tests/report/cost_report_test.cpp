// The cost page's report (report/cost_report.h): `cost --report-data` and `cost --html` say the
// run's cost and the break-even of owning in words, with the answer's own figures, and carry
// the data the charts draw; `cost --json` is unchanged by them.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "econ/cost_over_time.h"
#include "report/human_units.h"
#include "report/web_assets.h"
#include "test_util.h"

namespace gpuplan {
namespace {

const std::vector<std::string> kCostRunArgs = {"cost",  "--gpu",  "h100-sxm",    "--gpus",
                                               "64",    "--model", "llama3.1-70b", "--tokens", "100B"};

nlohmann::json cost_report_of(std::vector<std::string> args) {
  args.emplace_back("--report-data");
  const auto r = testing::run(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(CostReport, TheSentenceCarriesTheRunsCostAndTheBreakEven) {
  const nlohmann::json data = cost_report_of(kCostRunArgs);
  EXPECT_EQ(data.at("kind"), "cost");
  const nlohmann::json& a = data.at("answer");
  const nlohmann::json& od = a.at("rows").at(data.at("on_demand_row").get<std::size_t>());
  EXPECT_EQ(od.at("pricing"), "on-demand");
  const std::string headline = data.at("headline");
  EXPECT_NE(headline.find("takes " + human_seconds(a.at("wall_hours").get<double>() * 3600) + " and costs " +
                          human_usd(od.at("usd").get<double>()) + " on-demand at " +
                          human_usd(od.at("usd_per_gpu_hour").get<double>()) + " per GPU-hour"),
            std::string::npos)
      << headline;
  const nlohmann::json& t = data.at("ownership").at("over_time");
  ASSERT_TRUE(t.at("breaks_even").get<bool>());
  EXPECT_NE(headline.find("after " + human_number(t.at("break_even_months").get<double>()) + " months of use"),
            std::string::npos)
      << headline;
  // The break-even is where the drawn lines cross, and the lines span the TCO's period.
  const double years = data.at("ownership").at("tco").at("years").at("value");
  EXPECT_EQ(t.at("points").size(), static_cast<std::size_t>(years * 12) + 1);
  const double h = t.at("break_even_hours");
  EXPECT_NEAR(t.at("own_upfront_usd").get<double>() + t.at("own_usd_per_hour").get<double>() * h,
              t.at("rent_usd_per_hour").get<double>() * h, 1e-3);
  EXPECT_DOUBLE_EQ(t.at("break_even_months").get<double>(), h / kHoursPerMonth);
  // The answer is `cost --json`'s object.
  std::vector<std::string> json_args = kCostRunArgs;
  json_args.emplace_back("--json");
  const auto plain = testing::run(json_args);
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(a, nlohmann::json::parse(plain.out));
  // The owning assumptions name their units and sources.
  bool capex = false;
  for (const auto& row : data.at("assumptions")) {
    if (row.at("label") == "purchase (up front)") {
      capex = true;
      EXPECT_EQ(row.at("value").get<std::string>().rfind(
                    human_usd(data.at("ownership").at("tco").at("capex_usd").at("value").get<double>()) + " (", 0),
                0u)
          << row.dump();
    }
  }
  EXPECT_TRUE(capex);
}

TEST(CostReport, WithoutAGpuCountOwningIsNotComparedAndTheSentenceSaysWhy) {
  const nlohmann::json data = cost_report_of({"cost", "--gpu", "h100-sxm", "--gpu-hours", "1000"});
  EXPECT_TRUE(data.at("ownership").is_null());
  const std::string headline = data.at("headline");
  EXPECT_NE(headline.find("Owning was not compared: the run is given as GPU-hours"), std::string::npos) << headline;
}

TEST(CostReport, HtmlEmbedsTheReportData) {
  if (!web_assets().built) GTEST_SKIP() << web_assets_missing_message();
  const auto path = testing::scratch_dir("html-cost") / "cost.html";
  std::vector<std::string> args = kCostRunArgs;
  args.insert(args.end(), {"--html", path.string()});
  const auto r = testing::run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote the HTML report"), std::string::npos) << r.out;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  const std::string page = s.str();
  EXPECT_NE(page.find("<title>llama3.1-70b on 64 × h100-sxm: what the run costs, renting or owning</title>"),
            std::string::npos);
  const std::string open = R"(<script id="gpuplan-data" type="application/json">)";
  const std::size_t at = page.find(open);
  ASSERT_NE(at, std::string::npos);
  const auto data = nlohmann::json::parse(page.substr(at + open.size(), page.find("</script>", at) - at - open.size()));
  EXPECT_EQ(data, cost_report_of(kCostRunArgs));
}

}  // namespace
}  // namespace gpuplan
