// A search worker's memo (plan/eval_memo.h) changes no answer: every plan of a space, evaluated
// in the search's order with one memo, gives the Estimate of a plain evaluate() to the bit.
#include <gtest/gtest.h>

#include "catalog/system_choice.h"
#include "plan/evaluate.h"
#include "search/enumerate.h"

namespace gpuplan {
namespace {

std::string label(const Plan& p) {
  return "tp" + std::to_string(p.tp) + " pp" + std::to_string(p.pp) + " vp" + std::to_string(p.vp) + " dp" +
         std::to_string(p.dp) + " cp" + std::to_string(p.cp) + " ep" + std::to_string(p.ep) + " sp" +
         std::to_string(p.sp) + " zero" + std::to_string(p.zero) + " shard" + std::to_string(p.dp_shard) + " mb" +
         std::to_string(p.micro_batch) + " recompute" + std::to_string(static_cast<int>(p.recompute));
}

void expect_same_estimate(const Estimate& a, const Estimate& b, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(a.verdict.kind(), b.verdict.kind());
  EXPECT_STREQ(a.reason_text(), b.reason_text());
  if (!a.valid() || !b.valid()) return;
  EXPECT_EQ(a.gpus, b.gpus);
  EXPECT_EQ(a.micro_batches, b.micro_batches);
  const double scalars_a[] = {a.tokens_per_step, a.step_time_s, a.tokens_per_s, a.tokens_per_s_per_gpu,
                              a.model_flops_per_step, a.hardware_flops_per_step, a.tflops_per_gpu, a.mfu, a.hfu,
                              a.bubble_fraction, a.memory_capacity_bytes, a.driver_reserved_bytes,
                              a.memory_margin_bytes, a.memory_error_fraction, a.host_memory_bytes,
                              a.host_memory_capacity_bytes};
  const double scalars_b[] = {b.tokens_per_step, b.step_time_s, b.tokens_per_s, b.tokens_per_s_per_gpu,
                              b.model_flops_per_step, b.hardware_flops_per_step, b.tflops_per_gpu, b.mfu, b.hfu,
                              b.bubble_fraction, b.memory_capacity_bytes, b.driver_reserved_bytes,
                              b.memory_margin_bytes, b.memory_error_fraction, b.host_memory_bytes,
                              b.host_memory_capacity_bytes};
  for (std::size_t i = 0; i < std::size(scalars_a); ++i) EXPECT_EQ(scalars_a[i], scalars_b[i]) << "scalar " << i;
  const MemoryBreakdown& ma = a.memory;
  const MemoryBreakdown& mb = b.memory;
  const double mem_a[] = {ma.weights_bytes, ma.gradients_bytes, ma.optimizer_bytes, ma.activations_bytes,
                          ma.head_buffers_bytes, ma.gathered_weights_bytes, ma.weight_copies_bytes,
                          ma.eager_temporaries_bytes, ma.optimizer_temp_bytes, ma.runtime_bytes,
                          ma.fragmentation_bytes, ma.total_bytes, ma.host_bytes};
  const double mem_b[] = {mb.weights_bytes, mb.gradients_bytes, mb.optimizer_bytes, mb.activations_bytes,
                          mb.head_buffers_bytes, mb.gathered_weights_bytes, mb.weight_copies_bytes,
                          mb.eager_temporaries_bytes, mb.optimizer_temp_bytes, mb.runtime_bytes,
                          mb.fragmentation_bytes, mb.total_bytes, mb.host_bytes};
  for (std::size_t i = 0; i < std::size(mem_a); ++i) EXPECT_EQ(mem_a[i], mem_b[i]) << "memory " << i;
  EXPECT_EQ(a.memory_tight, b.memory_tight);
  EXPECT_EQ(a.memory_stage, b.memory_stage);
  const TrainBreakdown& ba = a.breakdown;
  const TrainBreakdown& bb = b.breakdown;
  const double times_a[] = {ba.forward_s, ba.backward_s, ba.recompute_s, ba.bubble_s, ba.optimizer_s};
  const double times_b[] = {bb.forward_s, bb.backward_s, bb.recompute_s, bb.bubble_s, bb.optimizer_s};
  for (std::size_t i = 0; i < std::size(times_a); ++i) EXPECT_EQ(times_a[i], times_b[i]) << "time " << i;
  const CommCost comm_a[] = {ba.tp, ba.cp, ba.ep, ba.pp, ba.dp, ba.offload_grads, ba.offload_weights, ba.offload_activations};
  const CommCost comm_b[] = {bb.tp, bb.cp, bb.ep, bb.pp, bb.dp, bb.offload_grads, bb.offload_weights, bb.offload_activations};
  for (std::size_t i = 0; i < std::size(comm_a); ++i) {
    EXPECT_EQ(comm_a[i].total_s, comm_b[i].total_s) << "comm " << i;
    EXPECT_EQ(comm_a[i].exposed_s, comm_b[i].exposed_s) << "comm " << i;
  }
  EXPECT_EQ(a.bottleneck, b.bottleneck);
}

// Every plan of the space, in enumeration (= search) order, through one memo and without.
void expect_memo_changes_nothing(const std::string& model, int gpus, int global_batch, int seq_len) {
  const Catalog& cat = default_catalog();
  const Gpu& gpu = cat.gpu("h100-sxm");
  const TrainContext ctx = make_train_context(cat, cat.model(model), gpu, default_system_for(cat, gpu), nullptr);
  SearchSpace s;
  s.gpus = gpus;
  s.global_batch = global_batch;
  s.seq_len = seq_len;
  const std::vector<Plan> plans = enumerate_plans(*ctx.model, s);
  ASSERT_GT(plans.size(), 10000u);
  TrainEvalMemoPtr memo = make_train_eval_memo(ctx);
  int fits = 0;
  for (const Plan& p : plans) {
    const Estimate plain = evaluate(ctx, p);
    const Estimate memoised = evaluate(ctx, p, memo.get());
    fits += plain.feasible() ? 1 : 0;
    expect_same_estimate(memoised, plain, label(p));
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(fits, 0);
}

// 16,359 plans (pipelines up to 16 stages: ranks in classes), 314 fitting; 32,034 MoE plans.
TEST(EvalMemo, DenseSearchSpaceGivesThePlainEstimates) { expect_memo_changes_nothing("llama3-70b", 16, 32, 4096); }
TEST(EvalMemo, MoeSearchSpaceGivesThePlainEstimates) { expect_memo_changes_nothing("mixtral-8x7b", 16, 16, 2048); }

// A memo made for another context is not used: the answers are that context's own.
TEST(EvalMemo, AMemoOfAnotherContextIsIgnored) {
  const Catalog& cat = default_catalog();
  const Gpu& gpu = cat.gpu("h100-sxm");
  const System* sys = default_system_for(cat, gpu);
  const TrainContext a = make_train_context(cat, cat.model("llama3-8b"), gpu, sys, nullptr);
  TrainContext b = a;
  for (CollectiveLevel& level : b.topology.levels) {  // slower links everywhere: other collective times
    level.line_bw_bytes_per_s /= 4;
    level.bw_bytes_per_s /= 4;
    level.reduction_bw_bytes_per_s /= 4;
    level.reduction_busbw_bytes_per_s /= 4;
  }
  Plan p;
  p.tp = 8;
  p.dp = 8;
  p.seq_len = 8192;
  p.global_batch = 64;
  TrainEvalMemoPtr memo = make_train_eval_memo(a);
  const Estimate on_a = evaluate(a, p, memo.get());
  const Estimate on_b = evaluate(b, p, memo.get());
  expect_same_estimate(on_a, evaluate(a, p), "a");
  expect_same_estimate(on_b, evaluate(b, p), "b");
  EXPECT_NE(on_a.breakdown.tp.total_s, on_b.breakdown.tp.total_s);
}

}  // namespace
}  // namespace gpuplan
