// The offline HTML report (--html) and the op roofline it draws.
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "plan/op_roofline.h"
#include "report/html_report.h"
#include "report/web_assets.h"
#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::vector<std::string> kTrainArgs = {"train", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--gpus", "64",
                                             "--tp", "8", "--pp", "2", "--sp", "--zero", "1", "--global-batch", "256",
                                             "--seq-len", "8192", "--recompute", "selective"};

// Every way a page can load something from the network: src=, href=, CSS url(), @import and
// JavaScript import()/import from, each with an http(s) address. (The bundle holds the SVG and
// XHTML namespace names, http://www.w3.org/2000/svg: identifiers, never fetched.)
std::vector<std::string> network_references(const std::string& page) {
  const std::regex pattern(
      R"((?:\b(?:src|href|action|poster|data)\s*=\s*["']?\s*|url\(\s*["']?\s*|@import\s+["']?\s*|\bimport\s*\(\s*["']\s*|\bfrom\s*["']\s*)(?:https?:)?//)",
      std::regex::icase);
  std::vector<std::string> hits;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), pattern); it != std::sregex_iterator(); ++it) {
    hits.push_back(page.substr(static_cast<std::size_t>(it->position()), 80));
  }
  return hits;
}

TEST(HtmlReport, NetworkReferenceCheckFindsEachKind) {
  // The check itself can fail: each kind of reference is caught, the namespace names are not.
  EXPECT_EQ(network_references(R"(<script src="https://cdn.example/x.js">)").size(), 1u);
  EXPECT_EQ(network_references(R"(<link href='http://x/y.css'>)").size(), 1u);
  EXPECT_EQ(network_references(R"(a{background:url(https://x/y.png)})").size(), 1u);
  EXPECT_EQ(network_references(R"(@import "https://fonts/x.css";)").size(), 1u);
  EXPECT_EQ(network_references(R"(import("https://esm.sh/d3"))").size(), 1u);
  EXPECT_EQ(network_references(R"(<img src=//cdn/x.png>)").size(), 1u);
  EXPECT_TRUE(network_references(R"(createElementNS("http://www.w3.org/2000/svg","g"))").empty());
}

TEST(HtmlReport, TrainWritesOneSelfContainedPageWithTheJsonAnswer) {
  if (!web_assets().built) GTEST_SKIP() << web_assets_missing_message();
  const auto dir = testing::scratch_dir("html-train");
  const auto path = dir / "report.html";
  std::vector<std::string> args = kTrainArgs;
  args.insert(args.end(), {"--html", path.string()});
  const auto r = run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote the HTML report"), std::string::npos) << r.out;
  const std::string page = read_text(path);
  ASSERT_GT(page.size(), 100000u);  // the chart library is inline
  EXPECT_TRUE(network_references(page).empty()) << network_references(page).front();
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_NE(page.find("prefers-color-scheme: dark"), std::string::npos);
  EXPECT_NE(page.find("@media print"), std::string::npos);

  // The embedded data is the --json answer, unchanged.
  const std::string open = R"(<script id="gpuplan-data" type="application/json">)";
  const std::size_t at = page.find(open);
  ASSERT_NE(at, std::string::npos);
  const std::size_t end = page.find("</script>", at);
  const auto data = nlohmann::json::parse(page.substr(at + open.size(), end - at - open.size()));
  std::vector<std::string> json_args = kTrainArgs;
  json_args.emplace_back("--json");
  const auto answer = run(json_args);
  ASSERT_EQ(answer.code, 0);
  EXPECT_EQ(data["kind"], "train");
  EXPECT_EQ(data["answer"], nlohmann::json::parse(answer.out));
  EXPECT_FALSE(data["roofline"]["ops"].empty());
}

TEST(HtmlReport, EmbeddedJsonCannotCloseTheScriptElement) {
  if (!web_assets().built) GTEST_SKIP() << web_assets_missing_message();
  nlohmann::ordered_json data;
  data["kind"] = "train";
  data["answer"] = {{"model", "</script><script>alert(1)</script>"}};
  const std::string page = html_page(data, "t <b>");
  EXPECT_EQ(page.find("</script><script>alert"), std::string::npos);
  EXPECT_NE(page.find("\\u003c/script\\u003e"), std::string::npos);
  EXPECT_NE(page.find("<title>t &lt;b&gt;</title>"), std::string::npos);
}

TEST(HtmlReport, UnwritablePathIsBadInputNamingTheFlag) {
  if (!web_assets().built) GTEST_SKIP() << web_assets_missing_message();
  std::vector<std::string> args = kTrainArgs;
  args.insert(args.end(), {"--html", "/nonexistent-dir/x/report.html"});
  const auto r = run(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--html /nonexistent-dir/x/report.html"), std::string::npos) << r.err;
}

TEST(HtmlReport, ReportDataIsTheAnswerPlusTheRoofline) {
  std::vector<std::string> args = kTrainArgs;
  args.emplace_back("--report-data");
  const auto r = run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "train");
  EXPECT_DOUBLE_EQ(j["answer"]["step_time_s"].get<double>(), j["answer"]["step_time_s"].get<double>());
  EXPECT_EQ(j["roofline"]["gpu"], "h100-sxm");
}

TEST(HtmlReport, SearchAndRecommendWriteReports) {
  if (!web_assets().built) GTEST_SKIP() << web_assets_missing_message();
  const auto dir = testing::scratch_dir("html-search");
  auto r = run({"search", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "16", "--global-batch", "128",
                "--seq-len", "4096", "--html", (dir / "s.html").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(network_references(read_text(dir / "s.html")).empty());
  r = run({"recommend", "--model", "llama3-8b", "--tokens", "10B", "--gpus-list", "8,16", "--providers", "lambda",
           "--html", (dir / "r.html").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string page = read_text(dir / "r.html");
  EXPECT_TRUE(network_references(page).empty());
  EXPECT_NE(page.find("\"kind\":\"recommend\""), std::string::npos);
}

// The op roofline: every op sits on or under the achievable roofline, and its figures are the
// plan's. Llama 3.1 8B, one H100, micro-batch 1 of 4,096 tokens, bf16, TP 1.
TEST(OpRoofline, OpsSitUnderTheAchievableRoofline) {
  const auto r = run({"train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--global-batch", "8",
                      "--seq-len", "4096", "--report-data"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto roof = nlohmann::json::parse(r.out)["roofline"];
  // H100 SXM dense bf16: 989.4 TFLOP/s; HBM3: 3.35 TB/s (datasheet).
  EXPECT_NEAR(roof["peak_flops_per_s"].get<double>(), 989.4e12, 1e12);
  EXPECT_NEAR(roof["peak_memory_bw_bytes_per_s"].get<double>(), 3.35e12, 0.01e12);
  EXPECT_LT(roof["achievable_flops_per_s"].get<double>(), roof["peak_flops_per_s"].get<double>());
  bool saw_qkv = false;
  for (const auto& op : roof["ops"]) {
    const double flops = op["flops"].get<double>();
    const double bytes = op["bytes"].get<double>();
    const double t = op["time_s"].get<double>();
    if (flops <= 0 || bytes <= 0) continue;
    const double ceiling = std::min(roof["achievable_flops_per_s"].get<double>(),
                                    roof["achievable_memory_bw_bytes_per_s"].get<double>() * flops / bytes);
    EXPECT_LE(flops / t, ceiling * (1 + 1e-9)) << op["name"];
    if (op["name"] == "qkv_proj") {
      saw_qkv = true;
      // Q, K, V of Llama 3.1 8B: 4,096 tokens × 4,096 hidden × (4,096 + 2 × 1,024) outputs, 2 FLOPs
      // per multiply-add: 2 × 4096 × 4096 × 6144 = 2.06e11 FLOPs.
      EXPECT_NEAR(flops, 2.0 * 4096 * 4096 * 6144, 1e6);
      EXPECT_EQ(op["kind"], "gemm");
    }
  }
  EXPECT_TRUE(saw_qkv);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// The serving curve: each point is `infer --concurrency C` itself, and more requests in flight
// never lower the throughput or the TPOT (decode steps only get bigger).
TEST(InferCurve, PointsAreTheInferAnswersAndMonotone) {
  const std::vector<std::string> base = {"infer", "--model", "llama3.1-8b", "--gpu", "h200-sxm", "--input-len", "2048",
                                         "--output-len", "256"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--concurrency", "64", "--report-data"});
  const auto r = testing::run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto data = nlohmann::json::parse(r.out);
  EXPECT_EQ(data["kind"], "infer");
  const auto& curve = data["curve"];
  ASSERT_GE(curve.size(), 5u);
  EXPECT_EQ(curve[0]["concurrency"].get<double>(), 1.0);
  for (std::size_t i = 1; i < curve.size(); ++i) {
    EXPECT_EQ(curve[i]["concurrency"].get<double>(), 2 * curve[i - 1]["concurrency"].get<double>());
    EXPECT_GE(curve[i]["output_tokens_per_s_per_gpu"].get<double>(), curve[i - 1]["output_tokens_per_s_per_gpu"].get<double>());
    EXPECT_GE(curve[i]["tpot_s"].get<double>(), curve[i - 1]["tpot_s"].get<double>());
  }
  std::vector<std::string> one = base;
  one.insert(one.end(), {"--concurrency", "16", "--json"});
  const auto at16 = nlohmann::json::parse(testing::run(one).out);
  bool found = false;
  for (const auto& p : curve) {
    if (p["concurrency"].get<double>() != 16) continue;
    found = true;
    EXPECT_DOUBLE_EQ(p["tpot_s"].get<double>(), at16["tpot_s"].get<double>());
    EXPECT_DOUBLE_EQ(p["output_tokens_per_s_per_gpu"].get<double>(), at16["output_tokens_per_s_per_gpu"].get<double>());
  }
  EXPECT_TRUE(found);
  // The answer itself is the --concurrency 64 one, unchanged.
  std::vector<std::string> json_args = base;
  json_args.insert(json_args.end(), {"--concurrency", "64", "--json"});
  EXPECT_EQ(data["answer"], nlohmann::json::parse(testing::run(json_args).out));
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// infer-search's report: the curve is the chosen plan's, so its point at the chosen load is
// the search's own estimate; the targets come along as the SLO lines.
TEST(InferCurve, SearchCurvePassesThroughTheChosenPlan) {
  const auto r = testing::run({"infer-search", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--input-len", "2048",
                               "--output-len", "256", "--tpot-ms", "50", "--report-data"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto data = nlohmann::json::parse(r.out);
  EXPECT_EQ(data["kind"], "infer-search");
  EXPECT_DOUBLE_EQ(data["slo"]["tpot_ms"].get<double>(), 50.0);
  EXPECT_FALSE(data["slo"].contains("ttft_ms"));
  const auto& best = data["answer"]["best"];
  bool found = false;
  for (const auto& p : data["curve"]) {
    if (p["concurrency"].get<double>() != best["plan"]["load"].get<double>()) continue;
    found = true;
    EXPECT_NEAR(p["tpot_s"].get<double>(), best["tpot_s"].get<double>(), 1e-12);
    EXPECT_NEAR(p["output_tokens_per_s_per_gpu"].get<double>(), best["output_tokens_per_s_per_gpu"].get<double>(), 1e-9);
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace gpuplan
