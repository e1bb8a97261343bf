// `validate inference` reads the optional num_requests column (issue 29): an offline row whose
// benchmark states its dataset size is scored as that finite run (infer/finite_run.h), an empty
// cell as the steady state, and a count the row cannot have exits naming the row.
#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/csv.h"
#include "core/error.h"
#include "infer/evaluate.h"
#include "infer/finite_run.h"
#include "validate/infer_fit.h"

namespace gpuplan {
namespace {

using testing::cat;

const char* kRequestsHeader =
    "id,source,model_ref,gpu,num_gpus,tp,pp,ep,weight_precision,kv_precision,input_len,output_len,"
    "mode,concurrency,engine,metric,value,notes,num_requests\n";

// The message of the Error `text` raises when read, "" if none.
std::string requests_refusal(const std::string& text) {
  try {
    read_inference_cases(CsvTable::parse(std::string(kRequestsHeader) + text, "t.csv"), cat());
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// Llama 3.1 8B on one H200 at 128/128, 256 requests: the prediction is the closed form's
// tokens/s times the finite run's factor, simulated as infer/finite_run.h does it, and the
// factor (below 1: the ramp-up and drain) is what the predictor reports.
TEST(InferNumRequests, OfflineRowIsScoredAsItsFiniteRun) {
  const std::string text = std::string(kRequestsHeader) +
      "n,s,llama3.1-8b,h200-sxm,1,1,1,1,fp8,fp8,128,128,offline_max_throughput,,tensorrt-llm 1.0,"
      "output_tokens_per_s_total,20000,,256\n"
      "steady,s,llama3.1-8b,h200-sxm,1,1,1,1,fp8,fp8,128,128,offline_max_throughput,,tensorrt-llm 1.0,"
      "output_tokens_per_s_total,20000,,\n";
  const std::vector<InferCase> cases = read_inference_cases(CsvTable::parse(text, "t.csv"), cat());
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].num_requests, 256);
  EXPECT_EQ(cases[1].num_requests, 0);
  InferPredictor predictor(cat());
  double factor = 0, none = 0;
  const double finite = predictor.predict(cases[0], nullptr, nullptr, &factor);
  const double steady = predictor.predict(cases[1], nullptr, nullptr, &none);
  EXPECT_EQ(none, 1);
  EXPECT_LT(factor, 1);
  EXPECT_NEAR(finite, steady * factor, 1e-9 * steady);
  const InferContext ctx = make_infer_context(cat(), *cases[0].model, *cases[0].gpu, *cases[0].engine);
  const InferEstimate e = evaluate_inference(ctx, cases[0].plan);
  EXPECT_DOUBLE_EQ(factor, simulate_finite_run(ctx, cases[0].plan, e.memory, 256).factor);
}

TEST(InferNumRequests, CountsTheRowCannotHaveNameTheRow) {
  const std::string offline =
      "x,s,llama3.1-8b,h200-sxm,1,1,1,1,fp8,fp8,128,128,offline_max_throughput,,tensorrt-llm 1.0,"
      "output_tokens_per_s_total,20000,,";
  std::string why = requests_refusal(offline + "0\n");
  EXPECT_NE(why.find("t.csv:2: column 'num_requests': row x: num_requests 0 must be the benchmark's request count"),
            std::string::npos)
      << why;
  why = requests_refusal(
      "y,s,llama3.1-8b,h200-sxm,1,1,1,1,fp8,fp8,128,128,fixed_concurrency,4,tensorrt-llm 1.0,tpot_ms,8,,100\n");
  EXPECT_NE(why.find("row y: num_requests applies to offline_max_throughput rows"), std::string::npos) << why;
  EXPECT_EQ(requests_refusal(offline + "\n"), "");
}

}  // namespace
}  // namespace gpuplan
