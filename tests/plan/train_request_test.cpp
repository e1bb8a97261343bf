// The training questions as library calls (plan/train_request.h, search/search_request.h,
// cost/rooflines_request.h) and their writers in report/: what the answer resolves, hand
// checks of the numbers it carries, and the keys and lines the reports must show.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/resolve_model.h"
#include "core/error.h"
#include "plan/evaluate.h"
#include "report/rooflines_report.h"
#include "report/search_report.h"
#include "report/train_report.h"
#include "workload/params.h"

namespace gpuplan {
namespace {

TrainRequest llama8b_on_8() {
  TrainRequest r;
  r.model = "llama3-8b";
  r.gpu = "h100-sxm";
  r.gpus = 8;
  r.global_batch = 64;
  r.seq_len = 4096;
  return r;
}

TEST(TrainRequest, ResolvesTheClusterAndThePlan) {
  const TrainAnswer a = answer_train(default_catalog(), llama8b_on_8());
  EXPECT_EQ(a.plan().dp, 8);  // gpus / (tp × pp × cp)
  EXPECT_EQ(a.plan().seq_len, 4096);
  ASSERT_NE(a.ctx().system, nullptr);  // 8 GPUs need a system: the GPU's default
  EXPECT_EQ(a.ctx().system->id, "dgx-h100");
  // DDP keeps all 16 bytes per parameter on every GPU: 8.03e9 × 16 B ≈ 120 GiB > 80 GB, so the
  // plan is valid (its numbers meaningful) but does not fit.
  ASSERT_TRUE(a.estimate.valid()) << a.estimate.reason_text();
  EXPECT_EQ(a.estimate.verdict.kind(), Infeasibility::Kind::out_of_memory);
  EXPECT_EQ(a.estimate.micro_batches, 8);  // 64 / (dp 8 × micro-batch 1)
  // Weights without sharding: every GPU holds all ~8.03e9 parameters at 2 bytes (bf16).
  const double params = count_params(default_catalog().model("llama3-8b")).total;
  EXPECT_NEAR(a.estimate.memory.weights_bytes, 2 * params, 0.01 * 2 * params);
  // Mixed-precision Adam: 12 bytes of optimizer state per parameter, 6 × the weights.
  EXPECT_NEAR(a.estimate.memory.optimizer_bytes, 6 * a.estimate.memory.weights_bytes, 1);
  // Model FLOPs per step: 64 × 4096 tokens × train_flops_per_token (6N + attention).
  EXPECT_DOUBLE_EQ(a.estimate.model_flops_per_step,
                   64.0 * 4096 * train_flops_per_token(default_catalog().model("llama3-8b"), 4096));
}

TEST(TrainRequest, MoeOverlapAndImbalanceAreCheckedInput) {
  TrainRequest r;
  r.model = "mixtral-8x7b";
  r.gpu = "h100-sxm";
  r.gpus = 8;
  r.ep = 8;
  r.global_batch = 64;
  r.seq_len = 4096;
  r.zero = 1;
  r.moe_overlap = "1f1b";
  r.moe_imbalance = 1.2;
  const TrainAnswer a = answer_train(default_catalog(), r);
  EXPECT_EQ(a.plan().moe_overlap, MoeOverlap::one_f_one_b);
  EXPECT_DOUBLE_EQ(a.plan().moe_imbalance, 1.2);
  r.moe_overlap = "dual";
  try {
    answer_train(default_catalog(), r);
    ADD_FAILURE() << "--moe-overlap dual accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--moe-overlap 'dual'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("dualpipe"), std::string::npos) << e.what();
  }
  r.moe_overlap = "none";
  r.moe_imbalance = 0.8;
  try {
    answer_train(default_catalog(), r);
    ADD_FAILURE() << "--moe-imbalance 0.8 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--moe-imbalance 0.8"), std::string::npos) << e.what();
  }
  // Megatron-Core overlaps the expert-parallel AllToAll only in the interleaved schedule
  // under a pipeline (TransformerConfig.__post_init__, core_v0.16.1): bad input naming the fix.
  r.moe_imbalance = 1;
  r.moe_overlap = "1f1b";
  r.pp = 2;
  r.ep = 4;
  try {
    answer_train(default_catalog(), r);
    ADD_FAILURE() << "--moe-overlap 1f1b with --pp 2 --vp 1 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--moe-overlap 1f1b with --pp 2 --vp 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--vp 2 or more"), std::string::npos) << e.what();
  }
  r.vp = 2;
  EXPECT_EQ(answer_train(default_catalog(), r).plan().moe_overlap, MoeOverlap::one_f_one_b);
}

// Issue 34: the pretraining length where the config says it (Llama 3.1: rope_scaling's
// original_max_position_embeddings 8,192 of a 131,072 context), else the context capped at
// 8,192; always a number in the plan, and said under the answer's assumptions.
TEST(TrainRequest, SeqLenDefaultsToThePretrainingLength) {
  TrainRequest r = llama8b_on_8();  // Llama 3 8B: context 8,192, no RoPE scaling
  r.seq_len.reset();
  const TrainAnswer a = answer_train(default_catalog(), r);
  EXPECT_EQ(a.plan().seq_len, 8192);
  EXPECT_DOUBLE_EQ(a.estimate.tokens_per_step, 64.0 * 8192);
  r.model = "llama3.1-8b";
  const TrainAnswer b = answer_train(default_catalog(), r);
  EXPECT_EQ(b.plan().seq_len, 8192);
  ASSERT_FALSE(b.setup.assumptions.empty());
  EXPECT_NE(b.setup.assumptions.front().find("seq_len 8192: llama3.1-8b's pretraining length"), std::string::npos)
      << b.setup.assumptions.front();
  r.model = "qwen3-32b";  // context 40,960, no RoPE scaling in its config: capped
  const TrainAnswer c = answer_train(default_catalog(), r);
  EXPECT_EQ(c.plan().seq_len, kDefaultTrainSeqLenCap);
}

// A plan that breaks a structural rule is bad input (issue 34), naming the nearest valid values.
TEST(TrainRequest, StructuralRuleIsAnErrorNamingTheNearestValues) {
  TrainRequest r = llama8b_on_8();
  r.gpus = 6;
  r.tp = 3;  // 32 heads
  r.global_batch = 0;
  try {
    answer_train(default_catalog(), r);
    ADD_FAILURE() << "--tp 3 on 32 heads accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--tp 3: tensor parallelism splits the attention heads"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("use --tp 1, 2, 4 or 8"), std::string::npos) << e.what();
  }
}

TEST(TrainRequest, InfeasiblePlanIsAValueWithAReason) {
  // The evaluation keeps the rule as a reason for the search's candidates.
  TrainSetup s = make_train_setup(default_catalog(), llama8b_on_8());
  s.plan.tp = 3;
  s.plan.dp = 2;
  s.plan.global_batch = 0;
  TrainAnswer a;
  a.setup = s;
  a.estimate = evaluate(a.setup.ctx, a.setup.plan);
  EXPECT_FALSE(a.estimate.valid());
  EXPECT_EQ(a.estimate.verdict.kind(), Infeasibility::Kind::invalid_plan);
  EXPECT_NE(std::string(a.estimate.reason_text()).find("TP 3"), std::string::npos);
  const auto j = to_json(a);
  EXPECT_FALSE(j["feasible"].get<bool>());
  EXPECT_NE(to_text(a).find("infeasible: TP 3"), std::string::npos);
}

TEST(TrainRequest, OutOfMemoryIsValidButDoesNotFit) {
  TrainRequest r = llama8b_on_8();
  r.gpus = 1;
  r.global_batch = 0;
  const MemoryAnswer a = answer_memory(default_catalog(), r);
  EXPECT_TRUE(a.train.estimate.valid());
  EXPECT_FALSE(a.train.estimate.fits());
  EXPECT_EQ(a.train.estimate.verdict.kind(), Infeasibility::Kind::out_of_memory);
  EXPECT_EQ(a.train.estimate.bottleneck, Bottleneck::memory);
  const auto j = to_json(a);
  for (const char* key : {"valid", "fits", "pipeline_rank", "memory_per_gpu_bytes", "memory"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_DOUBLE_EQ(j["memory"]["total_bytes"].get<double>(), a.train.estimate.memory.total_bytes);
  EXPECT_NE(to_text(a).find("DOES NOT FIT"), std::string::npos);
}

TEST(TrainReport, JsonKeysAndTextBottleneck) {
  const TrainAnswer a = answer_train(default_catalog(), llama8b_on_8());
  const auto j = to_json(a);
  for (const char* key : {"model", "gpu", "system", "plan", "feasible", "reason", "step_time_s", "mfu", "hfu",
                          "memory_per_gpu_bytes", "fits", "memory", "breakdown", "bottleneck", "placement"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_FALSE(j.contains("calibration"));  // only with a profile
  EXPECT_EQ(j["bottleneck"].get<std::string>(), bottleneck_name(a.estimate.bottleneck));
  EXPECT_NE(to_text(a).find(std::string("bottleneck: ") + bottleneck_name(a.estimate.bottleneck)),
            std::string::npos);
}

// --framework (catalog/framework.h): the default is Megatron-Core, an alias names its family,
// the plan JSON says which, and a bad name is an Error naming the flag and the valid names.
TEST(TrainRequest, FrameworkIsAPlanFieldUsersCanSet) {
  TrainRequest r = llama8b_on_8();
  r.zero = 3;  // fits
  const TrainAnswer mcore = answer_train(default_catalog(), r);
  ASSERT_NE(mcore.ctx().framework, nullptr);
  EXPECT_EQ(mcore.ctx().framework->id, "megatron-core");
  EXPECT_EQ(to_json(mcore)["plan"]["framework"].get<std::string>(), "megatron-core");
  r.framework = "torchtitan";
  const TrainAnswer titan = answer_train(default_catalog(), r);
  EXPECT_EQ(titan.ctx().framework->id, "pytorch-fsdp");
  EXPECT_EQ(to_json(titan)["plan"]["framework"].get<std::string>(), "pytorch-fsdp");
  EXPECT_NE(to_text(titan).find("pytorch-fsdp"), std::string::npos);
  // Same plan, same GPU: the host time per kernel differs by framework, so the step does.
  EXPECT_NE(titan.estimate.step_time_s, mcore.estimate.step_time_s);
  r.framework = "jax";  // not a framework of the catalog
  try {
    answer_train(default_catalog(), r);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("--framework 'jax'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("megatron-core"), std::string::npos) << msg;
    EXPECT_NE(msg.find("torchtitan"), std::string::npos) << msg;
  }
}

// Eager element-wise kernels (--elementwise eager): the same plan with RMSNorm, RoPE and SwiGLU
// as chains of kernels streams more bytes, so its step is longer; the plan JSON and the text
// say so, and a plan without it reads as before.
TEST(TrainRequest, ElementwiseIsAPlanFieldUsersCanSet) {
  TrainRequest r = llama8b_on_8();
  r.zero = 3;
  r.framework = "torchtitan";
  const TrainAnswer fused = answer_train(default_catalog(), r);
  EXPECT_FALSE(fused.plan().eager_elementwise);
  EXPECT_FALSE(to_json(fused)["plan"].contains("elementwise"));
  r.elementwise = "eager";
  const TrainAnswer eager = answer_train(default_catalog(), r);
  EXPECT_TRUE(eager.plan().eager_elementwise);
  EXPECT_EQ(to_json(eager)["plan"]["elementwise"].get<std::string>(), "eager");
  EXPECT_NE(to_text(eager).find("eager element-wise"), std::string::npos);
  // Per token per layer, eager adds 2 × 4,096 × 32 (norms) + 5,120 × 16 (RoPE) + 14,336 × 4
  // (SwiGLU) = 401,408 forward bytes (3× with the backward) to ~1.5 GFLOP of matmuls: a
  // longer step by a few to ~20%, never shorter.
  EXPECT_GT(eager.estimate.step_time_s, 1.02 * fused.estimate.step_time_s);
  EXPECT_LT(eager.estimate.step_time_s, 1.30 * fused.estimate.step_time_s);
  EXPECT_DOUBLE_EQ(eager.estimate.model_flops_per_step, fused.estimate.model_flops_per_step);
}

// An unfitted GPU (MI300X, generic efficiency entry) must not train faster per GPU than the
// fitted H100 on the same plan: public training measurements put MI300X at or below H100
// (data/fitted/efficiency/generic.toml cites them).
TEST(TrainRequest, UnfittedMi300xIsNotFasterThanH100) {
  TrainRequest r;
  r.model = "llama3-8b";
  r.gpus = 8;
  r.zero = 3;
  r.micro_batch = 1;
  r.global_batch = 64;
  r.seq_len = 8192;
  r.gpu = "h100-sxm";
  const TrainAnswer h100 = answer_train(default_catalog(), r);
  r.gpu = "mi300x";
  const TrainAnswer mi300x = answer_train(default_catalog(), r);
  ASSERT_TRUE(h100.estimate.fits()) << h100.estimate.reason_text();
  ASSERT_TRUE(mi300x.estimate.fits()) << mi300x.estimate.reason_text();
  EXPECT_LE(mi300x.estimate.tokens_per_s_per_gpu, h100.estimate.tokens_per_s_per_gpu);
}

TEST(TrainRequest, RuleOfThumbDefaultsToH100) {
  const RuleOfThumbAnswer a = answer_rule_of_thumb(default_catalog(), "");
  EXPECT_EQ(a.gpu->id, "h100-sxm");
  EXPECT_DOUBLE_EQ(to_json(a)["rows"][0]["states_bytes"].get<double>(), 7e9 * 16);
}

TEST(SearchRequest, AnswerAndReport) {
  SearchRequest r;
  r.model = "llama3-8b";
  r.gpu = "h100-sxm";
  r.gpus = 8;
  r.global_batch = 32;
  r.seq_len = 4096;
  r.top = 2;
  r.threads = 1;
  const SearchAnswer a = answer_search(default_catalog(), r);
  EXPECT_EQ(a.space.seq_len, 4096);
  EXPECT_EQ(a.result.threads, 1);
  ASSERT_EQ(a.result.top.size(), 2u);
  EXPECT_LE(a.result.top[0].estimate.step_time_s, a.result.top[1].estimate.step_time_s);
  const auto j = to_json(a);
  for (const char* key : {"model", "gpu", "objective", "space", "evaluated", "feasible", "pruned", "best", "top",
                          "closest"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["best"]["plan"], j["top"][0]["plan"]);
  const std::string text = to_text(a);
  EXPECT_NE(text.find("objective: time"), std::string::npos) << text;
  EXPECT_NE(text.find("bottleneck: "), std::string::npos) << text;
}

TEST(RooflinesRequest, FabricNamesTheSystemAndGpuMayDiffer) {
  RooflinesRequest r;
  r.fabric = "dgx-superpod-h100";
  RooflinesAnswer a = answer_rooflines(default_catalog(), r);
  EXPECT_EQ(a.gpu->id, "h100-sxm");
  ASSERT_FALSE(a.levels.empty());
  // Seed 004: H100 at 989 TFLOP/s on 8 × 450 GB/s NVLink: max TP ≈ 8.5 for F = 16384.
  EXPECT_NEAR(a.levels[0].tp_max, 8.5, 0.05);
  EXPECT_NE(to_text(a).find("Scaling rooflines"), std::string::npos);
  EXPECT_EQ(to_json(a)["levels"].size(), a.levels.size());
  r.ep = 0;
  EXPECT_THROW(answer_rooflines(default_catalog(), r), Error);
}

}  // namespace
}  // namespace gpuplan
