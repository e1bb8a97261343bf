// `validate inference` mode max_rate_within_slo (shared/data/README.md, 2026-11-26): a row of our
// own (no such rows are in the shared data yet) scored by the scheduler simulation's rate search,
// and the strict parsing of its columns.
#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/csv.h"
#include "core/error.h"
#include "infer/evaluate.h"
#include "infer/sim_slo.h"
#include "validate/infer_fit.h"
#include "validate/infer_validation.h"

namespace gpuplan {
namespace {

using testing::cat;

const char* kSloModeHeader =
    "id,source,model_ref,gpu,num_gpus,tp,pp,ep,weight_precision,kv_precision,input_len,output_len,mode,"
    "concurrency,engine,metric,value,notes,slo_ttft_ms,slo_tpot_ms,slo_percentile\n";

std::string row(const std::string& tail) {
  return std::string(kSloModeHeader) + "r1,own,llama3.1-8b,h100-sxm,2,1,1,1,fp8,fp8,512,128,max_rate_within_slo,,vllm," + tail +
         "\n";
}

// The row's prediction is the rate search's output tokens/s for one replica times the row's two
// replicas (2 GPUs at TP 1), with the limits and percentile of its cells.
TEST(InferSloMode, RowScoredByTheRateSearch) {
  const InferValidation v =
      validate_inference(CsvTable::parse(row("output_tokens_per_s_total,20000,,500,40,"), "t.csv"), cat());
  ASSERT_EQ(v.rows.size(), 1u);
  const InferValidationRow& r = v.rows[0];
  EXPECT_EQ(r.band, "slo");
  ASSERT_GT(r.predicted, 0) << r.note;

  const InferContext ctx = make_infer_context(cat(), cat().model("llama3.1-8b"), cat().gpu("h100-sxm"), cat().engine("vllm"));
  InferPlan plan;
  plan.weights = Precision::fp8;
  plan.kv = Precision::fp8;
  plan.input_len = 512;
  plan.output_len = 128;
  plan.mode = InferMode::max_throughput;
  const InferEstimate e = evaluate_inference(ctx, plan);
  SimWorkload w;
  w.input_len = 512;
  w.output_len = 128;
  SimRateQuestion q;
  q.ttft_s = 0.5;
  q.tpot_s = 0.04;
  q.percentile = 99;
  const SimRateAnswer a = max_rate_within_slo(ctx, plan, sim_scheduler_of(ctx, plan, e.memory), w, q);
  ASSERT_TRUE(a.feasible);
  EXPECT_DOUBLE_EQ(r.predicted, 2 * a.output_tokens_per_s);
  EXPECT_LE(a.ttft_s, 0.5);
  EXPECT_LE(a.tpot_s, 0.04);

  // At the median the same limits allow at least the rate of the 99th percentile.
  const InferValidation median =
      validate_inference(CsvTable::parse(row("output_tokens_per_s_total,20000,,500,40,50"), "t.csv"), cat());
  EXPECT_GE(median.rows[0].predicted, r.predicted);
}

void expect_error(const std::string& text, const std::string& needle) {
  try {
    validate_inference(CsvTable::parse(text, "t.csv"), cat());
    ADD_FAILURE() << "accepted: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(InferSloMode, BadCellsNameTheColumn) {
  expect_error(row("output_tokens_per_s_total,20000,,0,40,"), "slo_ttft_ms 0 must be a positive limit");
  expect_error(row("output_tokens_per_s_total,20000,,500,,"), "slo_tpot_ms");
  expect_error(row("output_tokens_per_s_total,20000,,500,40,100"), "slo_percentile 100 must be between 0 and 100");
  expect_error(row("ttft_ms,20000,,500,40,"), "mode max_rate_within_slo scores output_tokens_per_s_total");
  const std::string no_columns =
      "id,source,model_ref,gpu,num_gpus,tp,pp,ep,weight_precision,kv_precision,input_len,output_len,mode,"
      "concurrency,engine,metric,value\n"
      "r1,own,llama3.1-8b,h100-sxm,1,1,1,1,fp8,fp8,512,128,max_rate_within_slo,,vllm,output_tokens_per_s_total,1\n";
  expect_error(no_columns, "needs a column slo_ttft_ms");
}

}  // namespace
}  // namespace gpuplan
