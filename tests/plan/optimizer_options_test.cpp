// The optimizer's memory-saving plan options (docs/model/training.md §4–5): Adam moments at 16
// or 8 bits, and the optimizer offloaded to host memory (ZeRO-Offload). Closed forms by hand;
// the evaluator by the identities they imply.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/error.h"
#include "core/units.h"
#include "plan/evaluate.h"
#include "plan/plan_json.h"
#include "plan/train_request.h"
#include "search/search.h"
#include "workload/test_models.h"

namespace gpuplan {
namespace {

TEST(OptimizerStateBits, BytesPerParameterByHand) {
  // fp32 m + v: 8 B; bf16: 4 B; 8-bit: 1 + 1 B plus one fp32 absmax per 2,048-element block of
  // each moment (Dettmers et al. 2022): 2 × (1 + 4/2048) = 2.00390625 B.
  EXPECT_DOUBLE_EQ(adam_moment_bytes(32), 8);
  EXPECT_DOUBLE_EQ(adam_moment_bytes(16), 4);
  EXPECT_DOUBLE_EQ(adam_moment_bytes(8), 2.00390625);
  // With the 4-byte fp32 master weight and the 2 + 2 of 16-bit weights and gradients:
  // 16 B (ZeRO's mixed-precision Adam), 12 B, and 10.00390625 B per parameter.
  const StateBytes base;
  const StateBytes s16 = with_optimizer_state_bits(base, 16);
  const StateBytes s8 = with_optimizer_state_bits(base, 8);
  EXPECT_DOUBLE_EQ(with_optimizer_state_bits(base, 32).optimizer, 12);
  EXPECT_DOUBLE_EQ(s16.optimizer, 8);
  EXPECT_DOUBLE_EQ(s8.optimizer, 6.00390625);
  EXPECT_DOUBLE_EQ(s8.weight + s8.grad + s8.optimizer, 10.00390625);
  EXPECT_DOUBLE_EQ(s16.weight + s16.grad + s16.optimizer, 12);
}

TEST(OptimizerOffload, MemoryMovesTheStatesToTheHost) {
  // 1e9 parameters, ZeRO-1 over 8 GPUs, 8-bit states offloaded: nothing of the optimizer on the
  // GPU; on the host its shard of the states and of the bf16 gradient copy:
  // (6.00390625 + 2) × 1e9 / 8 = 1.00048828125e9 bytes.
  MemoryInputs in;
  in.dense_params = 1e9;
  in.zero_stage = 1;
  in.dense_shard = 8;
  in.bytes = with_optimizer_state_bits(StateBytes{}, 8);
  in.optimizer_on_host = true;
  in.host_grad_bytes = 2;
  const MemoryBreakdown m = memory_per_gpu(in);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 0);
  EXPECT_DOUBLE_EQ(m.host_bytes, 1.00048828125e9);
  EXPECT_DOUBLE_EQ(m.total_bytes, 2e9 + 2e9);  // bf16 weights and gradients stay
}

TEST(OptimizerOffload, TransfersAndCpuStepByHand) {
  // 1e9 parameters of the shard, bf16 gradients and weights over a 50 GB/s host link: 2 GB each
  // way, 40 ms. The last backward lasts 30 ms: 10 ms of the gradient copy shows. The CPU step
  // moves 28 B per parameter (2 + 2 × 12 + 2) at a 70 GB/s DRAM share: 0.4 s. The weights come
  // back after it, all 40 ms exposed.
  const OffloadCost c = optimizer_offload_cost(1e9, 2, 2, 28, 50e9, 70e9, 0.030);
  EXPECT_DOUBLE_EQ(c.grads.total_s, 0.040);
  EXPECT_NEAR(c.grads.exposed_s, 0.010, 1e-15);
  EXPECT_DOUBLE_EQ(c.cpu_step_s, 0.4);
  EXPECT_DOUBLE_EQ(c.weights.total_s, 0.040);
  EXPECT_DOUBLE_EQ(c.weights.exposed_s, 0.040);
  // A backward longer than the copy hides all of it.
  EXPECT_DOUBLE_EQ(optimizer_offload_cost(1e9, 2, 2, 28, 50e9, 70e9, 0.050).grads.exposed_s, 0);
}

using testing::DgxH100;

Plan eight_gpu_plan() {
  Plan p;
  p.seq_len = 4096;
  p.dp = 8;
  p.zero = 1;
  p.micro_batch = 1;
  p.global_batch = 32;
  return p;
}

TEST(OptimizerStateBits, ScalesTheOptimizerMemoryAndStepOnly) {
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan p = eight_gpu_plan();
  const Estimate e32 = evaluate(ctx, p);
  ASSERT_TRUE(e32.feasible()) << e32.reason_text();
  p.optimizer_state_bits = 8;
  const Estimate e8 = evaluate(ctx, p);
  ASSERT_TRUE(e8.feasible()) << e8.reason_text();
  // Same parameters, same sharding: optimizer memory × 6.00390625 / 12, the step's HBM traffic
  // × (2 + 2 × 6.00390625 + 2) / 28; nothing else moves.
  EXPECT_NEAR(e8.memory.optimizer_bytes / e32.memory.optimizer_bytes, 6.00390625 / 12, 1e-12);
  EXPECT_NEAR(e8.breakdown.optimizer_s / e32.breakdown.optimizer_s, 16.0078125 / 28, 1e-12);
  EXPECT_DOUBLE_EQ(e8.memory.weights_bytes, e32.memory.weights_bytes);
  EXPECT_DOUBLE_EQ(e8.memory.activations_bytes, e32.memory.activations_bytes);
  EXPECT_NEAR(e8.step_time_s - e8.breakdown.optimizer_s, e32.step_time_s - e32.breakdown.optimizer_s, 1e-12);
  p.optimizer_state_bits = 16;
  EXPECT_NEAR(evaluate(ctx, p).memory.optimizer_bytes / e32.memory.optimizer_bytes, 8.0 / 12, 1e-12);
  // Any other width is a structural error of the plan, never a silent default.
  p.optimizer_state_bits = 4;
  EXPECT_FALSE(evaluate(ctx, p).valid());
}

TEST(OptimizerStep, StreamsAtTheFamilysMeasuredShareOfTheHbm) {
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  // Hopper: the fused AdamW step measured at 0.75 of the datasheet's 3.35 TB/s
  // (data/fitted/efficiency/hopper.toml), the memory-bound kernels at the fitted 0.605.
  EXPECT_DOUBLE_EQ(ctx.device.optimizer_bw_bytes_per_s, 3.35e12 * 0.75);
  EXPECT_DOUBLE_EQ(ctx.device.memory_bw_bytes_per_s, 3.35e12 * 0.605);
  const Plan p = eight_gpu_plan();
  const Estimate measured = evaluate(ctx, p);
  ASSERT_TRUE(measured.feasible()) << measured.reason_text();
  // 28 B per shard parameter (fp32 master weight, m, v read and written, bf16 gradient read,
  // bf16 weight written) over the streaming bandwidth; the shard of ZeRO-1 over dp is what the
  // memory holds at 12 B per parameter.
  const double shard_params = measured.memory.optimizer_bytes / 12;
  EXPECT_NEAR(measured.breakdown.optimizer_s, shard_params * 28 / (3.35e12 * 0.75),
              1e-9 * measured.breakdown.optimizer_s);
  // A family without a measured share steps at the memory-bound kernels' bandwidth; only the
  // optimizer term moves, by 0.75 / 0.605.
  ctx.device.optimizer_bw_bytes_per_s = 0;
  const Estimate fallback = evaluate(ctx, p);
  EXPECT_NEAR(fallback.breakdown.optimizer_s / measured.breakdown.optimizer_s, 0.75 / 0.605, 1e-12);
  EXPECT_NEAR(fallback.step_time_s - fallback.breakdown.optimizer_s,
              measured.step_time_s - measured.breakdown.optimizer_s, 1e-12);
}

TEST(OptimizerOffload, StepAddsTheCpuStepAndTheExposedTransfers) {
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  // DGX H100: PCIe 5 × 0.88 measured host-to-device (data/fitted/collectives/nccl.toml) and
  // 563.2 GB/s of host DRAM over 8 GPUs.
  EXPECT_DOUBLE_EQ(ctx.host_link_bw_bytes_per_s, 63e9 * 0.88);
  EXPECT_DOUBLE_EQ(ctx.host_memory_bw_bytes_per_s, 563.2e9);
  EXPECT_EQ(ctx.host_gpus, 8);
  Plan p = eight_gpu_plan();
  const Estimate base = evaluate(ctx, p);
  p.offload_optimizer = true;
  const Estimate off = evaluate(ctx, p);
  ASSERT_TRUE(off.feasible()) << off.reason_text();
  const TrainBreakdown& b = off.breakdown;
  // The GPU's optimizer step (28 B per shard parameter over HBM) becomes the CPU's: the same
  // bytes at 563.2 / 8 GB/s; the shard's parameters follow from the GPU-side step.
  const double shard_params = base.breakdown.optimizer_s * ctx.device.optimizer_bw_bytes_per_s / 28;
  EXPECT_NEAR(b.optimizer_s, shard_params * 28 / (563.2e9 / 8), 1e-9 * b.optimizer_s);
  EXPECT_NEAR(b.offload_grads.total_s, shard_params * 2 / (63e9 * 0.88), 1e-9 * b.offload_grads.total_s);
  EXPECT_NEAR(b.offload_weights.total_s, b.offload_grads.total_s, 1e-15);
  // Gradients under the last micro-batch's backward; the weights all exposed.
  const double last_backward = b.backward_s / off.micro_batches;
  EXPECT_NEAR(b.offload_grads.exposed_s, std::max(0.0, b.offload_grads.total_s - last_backward), 1e-15);
  EXPECT_DOUBLE_EQ(b.offload_weights.exposed_s, b.offload_weights.total_s);
  EXPECT_NEAR(off.step_time_s,
              base.step_time_s - base.breakdown.optimizer_s + b.optimizer_s + b.offload_grads.exposed_s +
                  b.offload_weights.exposed_s,
              1e-12);
  // Memory: no optimizer states on the GPU; on the host (12 + 2 gradient) B per shard parameter,
  // checked against the host's 2,048 GiB over its 8 GPUs.
  EXPECT_DOUBLE_EQ(off.memory.optimizer_bytes, 0);
  const double gpu_optimizer = base.memory.optimizer_bytes * (1 + ctx.fragmentation_fraction);
  EXPECT_NEAR(off.memory.total_bytes, base.memory.total_bytes - gpu_optimizer, 1e-6 * base.memory.total_bytes);
  EXPECT_NEAR(off.host_memory_bytes, shard_params * 14, 1e-6 * off.host_memory_bytes);
  EXPECT_DOUBLE_EQ(off.host_memory_capacity_bytes, 2048 * kGiB / 8);
  EXPECT_DOUBLE_EQ(base.host_memory_bytes, 0);
}

TEST(OptimizerOffload, HostTooSmallIsOutOfMemory) {
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  ctx.host_memory_bytes = 8 * kGiB;  // 1 GiB per GPU, far below 8B × 14 B / 8
  Plan p = eight_gpu_plan();
  p.offload_optimizer = true;
  const Estimate e = evaluate(ctx, p);
  EXPECT_EQ(e.verdict.kind(), Infeasibility::Kind::out_of_memory);
  EXPECT_NE(std::string(e.reason_text()).find("host memory"), std::string::npos) << e.reason_text();
  // Without a host in the catalog the plan cannot be costed: invalid, saying why.
  ctx.host_memory_bw_bytes_per_s = 0;
  const Estimate no_host = evaluate(ctx, p);
  EXPECT_FALSE(no_host.valid());
  EXPECT_NE(std::string(no_host.reason_text()).find("host memory bandwidth"), std::string::npos);
}

TEST(OptimizerOffload, PlanJsonRoundTripsAndStaysQuietByDefault) {
  Plan p = eight_gpu_plan();
  EXPECT_FALSE(plan_json(p).contains("optimizer_state_bits"));
  EXPECT_FALSE(plan_json(p).contains("offload_optimizer"));
  p.optimizer_state_bits = 8;
  p.offload_optimizer = true;
  const Plan back = plan_from_json(nlohmann::json::parse(plan_json(p).dump()));
  EXPECT_EQ(back.optimizer_state_bits, 8);
  EXPECT_TRUE(back.offload_optimizer);
  nlohmann::json bad = nlohmann::json::parse(plan_json(p).dump());
  bad["optimizer_state_bits"] = 4;
  EXPECT_THROW(plan_from_json(bad), Error);
}

TEST(OptimizerOffload, SearchKeepsItFixedAndPruningStaysExact) {
  // Every plan of the space offloads; the time-pruning bound (which removes the exposed
  // transfers with the optimizer step) gives the same answer as brute force.
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  SearchSpace space;
  space.gpus = 8;
  space.global_batch = 16;
  space.seq_len = 4096;
  space.offload_optimizer = true;
  space.optimizer_state_bits = 8;
  SearchOptions pruned;
  pruned.top_k = 3;
  pruned.threads = 1;
  SearchOptions brute = pruned;
  brute.prune = false;
  const SearchResult a = search_plans(ctx, space, pruned);
  const SearchResult b = search_plans(ctx, space, brute);
  ASSERT_FALSE(a.top.empty());
  ASSERT_EQ(a.top.size(), b.top.size());
  for (std::size_t i = 0; i < a.top.size(); ++i) {
    EXPECT_TRUE(a.top[i].plan.offload_optimizer);
    EXPECT_EQ(a.top[i].plan.optimizer_state_bits, 8);
    EXPECT_DOUBLE_EQ(a.top[i].estimate.step_time_s, b.top[i].estimate.step_time_s);
  }
}

TEST(OptimizerOffload, SeedErrataGb200HostLinkIsNotItsNvlink) {
  // Seed 004 ("Grace Hopper"): on GH200 and GB200 "the bandwidth a GPU has to host memory is the
  // same as to another GPU's HBM". GB200's NVLink-C2C carries 450 GB/s one way (and one Grace
  // serves two GPUs); its NVLink 5 900 GB/s: at most half. GH200: 450 = 450, the claim holds.
  const Catalog& c = default_catalog();
  const double c2c = c.link("nvlink-c2c").device_bw_uni_bytes_per_s;
  EXPECT_LE(c2c, 0.5 * c.system("gb200-nvl72").scaleup_bw_uni_bytes_per_s);
  EXPECT_DOUBLE_EQ(c2c, c.gpu("gh200").scaleup_bw_uni_bytes_per_s);
}

TEST(OptimizerOptions, BadValuesAreErrorsNamingTheFlag) {
  TrainRequest r;
  r.model = "llama3-8b";
  r.gpu = "h100-sxm";
  r.gpus = 8;
  r.seq_len = 4096;
  r.optimizer_state_bits = 4;
  try {
    answer_train(default_catalog(), r);
    ADD_FAILURE() << "accepted 4 bits";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--optimizer-state-bits 4"), std::string::npos) << e.what();
  }
  r.optimizer_state_bits = 16;
  r.offload_optimizer = true;
  EXPECT_NO_THROW(answer_train(default_catalog(), r));
  // One GPU with offload still runs on a host: the GPU's default system's.
  r.gpus = 1;
  const TrainAnswer one = answer_train(default_catalog(), r);
  ASSERT_NE(one.ctx().system, nullptr);
  EXPECT_GT(one.ctx().host_memory_bw_bytes_per_s, 0);
  // A system without a host in the catalog is bad input for offload, naming the fix.
  r.gpu = "b200";
  r.gpus = 8;
  try {
    answer_train(default_catalog(), r);
    ADD_FAILURE() << "accepted offload without a host";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--offload-optimizer"), std::string::npos) << what;
    EXPECT_NE(what.find("dgx-h100"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace gpuplan
