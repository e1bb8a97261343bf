// `validate inference` reads the optional attention_dp column (issue 29): DEP rows are scored as
// DEP, an empty cell is attention over the TP group, and the validator refuses what `infer`
// refuses, naming the row.
#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/csv.h"
#include "core/error.h"
#include "validate/infer_fit.h"
#include "validate/infer_validation.h"

namespace gpuplan {
namespace {

using testing::cat;

const char* kAdpHeader =
    "id,source,model_ref,gpu,num_gpus,tp,pp,ep,attention_dp,weight_precision,kv_precision,input_len,output_len,"
    "mode,concurrency,engine,metric,value,notes\n";

// The message of the Error `text` raises when read, "" if none.
std::string refusal_of(const std::string& text) {
  try {
    read_inference_cases(CsvTable::parse(std::string(kAdpHeader) + text, "t.csv"), cat());
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

TEST(InferAttentionDpColumn, DepRowsAreScoredAsDepAndEmptyIsAttentionTp) {
  // DeepSeek-V3 on 8 H200s, TP 8 / EP 8, at the offline maximum: the same row read as DEP (every
  // GPU its own attention rank and MLA KV cache) and with the cell empty (the latent cache
  // replicated on all 8 GPUs of one attention group).
  const std::string rows =
      "dep,s,deepseek-v3,h200-sxm,8,8,1,8,8,fp8,fp8,1024,1024,offline_max_throughput,,trtllm,"
      "output_tokens_per_s_total,10000,\n"
      "tp,s,deepseek-v3,h200-sxm,8,8,1,8,,fp8,fp8,1024,1024,offline_max_throughput,,trtllm,"
      "output_tokens_per_s_total,10000,\n";
  const CsvTable csv = CsvTable::parse(std::string(kAdpHeader) + rows, "t.csv");
  const std::vector<InferCase> cases = read_inference_cases(csv, cat());
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].plan.attention_dp, 8);
  EXPECT_EQ(cases[0].plan.attention_tp(), 1);
  EXPECT_EQ(cases[1].plan.attention_dp, 1);
  const InferValidation v = validate_inference(csv, cat());
  ASSERT_GT(v.rows[0].predicted, 0) << v.rows[0].note;
  ASSERT_GT(v.rows[1].predicted, 0) << v.rows[1].note;
  // Eight times the KV capacity (no replicated latent) runs more sequences per step: DEP's
  // offline throughput is the higher one.
  EXPECT_GT(v.rows[0].predicted, 1.5 * v.rows[1].predicted);
}

TEST(InferAttentionDpColumn, RefusesWhatInferRefusesNamingTheRow) {
  // TP 7 divides neither DeepSeek-V3's 128 heads nor its experts' 2048 columns.
  const std::string tp7 = refusal_of(
      "ds-tp7,s,deepseek-v3,h200-sxm,7,7,1,1,,fp8,fp8,1024,1024,offline_max_throughput,,vllm,"
      "output_tokens_per_s_total,1000,\n");
  EXPECT_NE(tp7.find("row ds-tp7"), std::string::npos) << tp7;
  EXPECT_NE(tp7.find("128 attention heads"), std::string::npos) << tp7;
  // attention_dp must divide tp.
  const std::string adp = refusal_of(
      "ds-adp3,s,deepseek-v3,h200-sxm,8,8,1,8,3,fp8,fp8,1024,1024,offline_max_throughput,,vllm,"
      "output_tokens_per_s_total,1000,\n");
  EXPECT_NE(adp.find("row ds-adp3"), std::string::npos) << adp;
  EXPECT_NE(adp.find("attention_dp 3 must be a divisor of its tp 8"), std::string::npos) << adp;
  // A valid DEP row is not refused.
  EXPECT_EQ(refusal_of("ok,s,deepseek-v3,h200-sxm,8,8,1,8,8,fp8,fp8,1024,1024,offline_max_throughput,,vllm,"
                       "output_tokens_per_s_total,1000,\n"),
            "");
  // FP4 weights on Hopper are planned weight-only (W4A16) by `infer` since issue 29's second
  // round, so the validator scores them too (docs/model/moe-serving.md, "Expert GEMM precision").
  EXPECT_EQ(refusal_of("gptoss-h100,s,gpt-oss-120b,h100-sxm,2,2,1,1,,fp4,bf16,1024,1024,offline_max_throughput,,vllm,"
                       "output_tokens_per_s_total,1000,\n"),
            "");
}

}  // namespace
}  // namespace gpuplan
