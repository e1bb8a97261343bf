// The writers in src/report/: each answer's text table renders its rows and its JSON has the
// keys the CLI tests and tools read. Answers are built by the library calls on the built-in
// catalog, or by hand for the validators.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/lookup_request.h"
#include "core/error.h"
#include "report/gpu_report.h"
#include "report/model_report.h"
#include "report/system_report.h"
#include "report/validation_report.h"

namespace gpuplan {
namespace {

TEST(Report, GpusTableAndJson) {
  const Catalog& catalog = default_catalog();
  GpusRequest request;
  request.vendor = "nvidia";
  const GpusAnswer answer = answer_gpus(catalog, request);
  ASSERT_FALSE(answer.gpus.empty());
  const auto j = to_json(answer);
  EXPECT_EQ(j["count"].get<std::size_t>(), answer.gpus.size());
  EXPECT_EQ(j["gpus"].size(), answer.gpus.size());
  EXPECT_TRUE(j["gpus"][0].contains("hbm_bytes"));
  const std::string text = to_text(answer);
  for (const Gpu* g : answer.gpus) EXPECT_NE(text.find(g->id), std::string::npos) << g->id;
  EXPECT_EQ(text.find("mi300x"), std::string::npos) << "the vendor filter leaves AMD out";
}

TEST(Report, CompareRatiosToTheFirst) {
  const CompareAnswer answer = answer_compare(default_catalog(), {{"h100-sxm", "b200"}});
  const auto j = to_json(answer);
  EXPECT_FALSE(j.empty());
  const std::string text = to_text(answer);
  EXPECT_NE(text.find("b200/h100-sxm"), std::string::npos) << text;  // ratios to the first
  EXPECT_NE(text.find("fp32 dense TFLOP/s"), std::string::npos) << text;
}

TEST(Report, SystemOrFabric) {
  const Catalog& catalog = default_catalog();
  const SystemAnswer node = answer_system(catalog, {"dgx-h100"});
  ASSERT_NE(node.system, nullptr);
  EXPECT_EQ(to_json(node)["id"], "dgx-h100");
  EXPECT_NE(to_text(node).find("dgx-h100"), std::string::npos);
  const SystemAnswer fabric = answer_system(catalog, {"dgx-superpod-h100"});
  ASSERT_NE(fabric.fabric, nullptr);
  EXPECT_EQ(to_json(fabric)["id"], "dgx-superpod-h100");
}

TEST(Report, CloudsOffers) {
  CloudsRequest request;
  request.gpu = "h100-sxm";
  const CloudsAnswer answer = answer_clouds(default_catalog(), request);
  ASSERT_FALSE(answer.offers.empty());
  const auto j = to_json(answer);
  EXPECT_EQ(j["offers"].size(), answer.offers.size());
  EXPECT_TRUE(j["offers"][0].contains("usd_per_gpu_hour"));
  EXPECT_NE(to_text(answer).find(answer.offers[0]->instance), std::string::npos);
}

TEST(Report, ModelsAndModel) {
  const Catalog& catalog = default_catalog();
  const ModelsAnswer all = answer_models(catalog);
  const auto j = to_json(all);
  EXPECT_EQ(j["count"].get<std::size_t>(), catalog.models.size());
  EXPECT_NE(to_text(all).find("llama3.1-8b"), std::string::npos);
  // GPT-2's context is 1,024 tokens: the default sequence length is the shorter of it and 4,096.
  const ModelAnswer gpt2 = answer_model(catalog.model("gpt2"), {"gpt2", std::nullopt});
  EXPECT_EQ(gpt2.seq_len, 1024);
  const ModelAnswer llama = answer_model(catalog.model("llama3.1-8b"), {"llama3.1-8b", 2048});
  EXPECT_EQ(llama.seq_len, 2048);
  EXPECT_EQ(to_json(llama)["id"], "llama3.1-8b");
  EXPECT_THROW(answer_model(catalog.model("llama3.1-8b"), {"llama3.1-8b", 0}), Error);
}

// A hand-built collectives validation: two rows, errors +10% and −20%.
TEST(Report, CollectiveValidationTextAndJson) {
  CollectiveValidation v;
  v.file = "runs.csv";
  v.params_id = "nccl";
  for (const double err : {0.10, -0.20}) {
    CollectiveValidationRow row;
    row.line = static_cast<int>(v.rows.size()) + 2;
    row.gpu = "h100-sxm";
    row.request.bytes = 1 << 20;
    row.measured_time_s = 1e-3;
    row.predicted.time_s = 1e-3 * (1 + err);
    row.error = err;
    v.rows.push_back(row);
    v.overall.add("all", err);
  }
  const auto j = to_json(v);
  EXPECT_EQ(j["file"], "runs.csv");
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["rows"][1]["error"].get<double>(), -0.20);
  EXPECT_EQ(j["summary"]["all"]["rows"], 2);
  // Median |error| of 10% and 20% is 15%; bias (10 − 20)/2 = −5%.
  EXPECT_NEAR(j["summary"]["all"]["median_abs_error_pct"].get<double>(), 15.0, 1e-9);
  EXPECT_NEAR(j["summary"]["all"]["mean_signed_error_pct"].get<double>(), -5.0, 1e-9);
  const std::string text = to_text(v);
  EXPECT_NE(text.find("runs.csv: 2 rows"), std::string::npos) << text;
  EXPECT_NE(text.find("+10.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("-20.0%"), std::string::npos) << text;
}

// A fold shows which constants it refitted and which fell back to the prior, and why.
TEST(Report, CollectiveFoldsNameRefittedAndPriorConstants) {
  CollectiveValidation v;
  v.file = "runs.csv";
  v.params_id = "nccl";
  v.logo = true;
  CollectiveConstantsFit fold;
  fold.held_out = "a100-sxm-80gb";
  fold.rows = 146;
  CollectiveFittedConstant refit;
  refit.name = "ll_bw_fraction";
  refit.value = 0.4;
  refit.prior = 0.25;
  refit.visible_rows = 129;
  refit.refitted = true;
  CollectiveFittedConstant prior;
  prior.name = "hop_scale nvlink3";
  prior.value = 1.0;
  prior.prior = 1.0;
  prior.why_prior = "no training row moves it";
  fold.constants = {refit, prior};
  v.gpu_folds.push_back(fold);
  v.logo_overall.add("all", 0.1);
  const auto j = to_json(v);
  const auto& c = j["leave_one_gpu_out"]["folds"][0]["constants"];
  EXPECT_EQ(j["leave_one_gpu_out"]["folds"][0]["held_out"], "a100-sxm-80gb");
  EXPECT_EQ(c[0]["refitted"], true);
  EXPECT_EQ(c[1]["refitted"], false);
  EXPECT_EQ(c[1]["why_prior"], "no training row moves it");
  EXPECT_FALSE(j.contains("leave_one_source_out"));
  const std::string text = to_text(v);
  EXPECT_NE(text.find("without a100-sxm-80gb"), std::string::npos) << text;
  EXPECT_NE(text.find("refitted: ll_bw_fraction 0.4 (129 rows)"), std::string::npos) << text;
  EXPECT_NE(text.find("prior:    hop_scale nvlink3 1 (no training row moves it)"), std::string::npos) << text;
}

TEST(Report, ErrorGroupsRenderOneRowPerGroup) {
  ErrorGroups groups;
  groups.add("a", 0.05);
  groups.add("b", -0.30);
  groups.add("a", 0.15);
  const auto j = error_groups_json(groups);
  EXPECT_EQ(j["a"]["rows"], 2);
  EXPECT_EQ(j["b"]["rows"], 1);
  EXPECT_DOUBLE_EQ(j["b"]["within_25_pct_share"].get<double>(), 0.0);
  const std::string text = error_groups_text("group", groups);
  EXPECT_LT(text.find("a "), text.find("b ")) << text;  // groups in first-seen order
  EXPECT_NE(text.find("-30.0%"), std::string::npos) << text;
}

TEST(Report, InferValidationMarksRowsWithoutPrediction) {
  InferValidation v;
  InferValidationRow ok;
  ok.id = "r1";
  ok.metric = "output_tokens_per_s";
  ok.measured = 100;
  ok.predicted = 110;
  InferValidationRow none = ok;
  none.id = "r2";
  none.predicted = 0;
  none.note = "does not fit";
  v.rows = {ok, none};
  v.skipped = 1;
  const auto j = to_json(v);
  EXPECT_NEAR(j["rows"][0]["error"].get<double>(), 0.10, 1e-12);
  EXPECT_TRUE(j["rows"][1]["predicted"].is_null());
  EXPECT_EQ(j["rows"][1]["note"], "does not fit");
  EXPECT_EQ(j["skipped"], 1);
  EXPECT_NE(to_text(v).find("does not fit"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan
