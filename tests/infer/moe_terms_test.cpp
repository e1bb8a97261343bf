// The MoE terms of a serving step (docs/model/moe-serving.md), each against a hand derivation:
// tokens per expert with the router imbalance, the experts a step touches and their bytes, the
// grouped-GEMM padding, the imbalance time, the routing permutes, the dispatch/combine AllToAll.
#include <cmath>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/error.h"
#include "infer/infer_request.h"
#include "infer/moe_routing.h"
#include "infer/step.h"

namespace gpuplan {
namespace {

using testing::cat;

InferContext moe_ctx(const char* model, const char* gpu = "h100-sxm", const char* engine = "vllm") {
  return make_infer_context(cat(), cat().model(model), cat().gpu(gpu), cat().engine(engine));
}

InferPlan moe_plan(int tp, int ep) {
  InferPlan p;
  p.tp = tp;
  p.ep = ep;
  p.weights = Precision::fp8;
  p.kv = Precision::fp8;
  return p;
}

// The rates step_cost uses, from the context's own constants (no time is fitted here).
double hbm_rate(const InferContext& ctx) {
  return ctx.gpu->memory_bw_bytes_per_s * ctx.engine->bw_fraction * ctx.calibration_bw_scale;
}
double fp8_gemm_rate(const InferContext& ctx) {
  const std::size_t i = index_of(Precision::fp8);
  return ctx.gpu->dense(Precision::fp8) * ctx.gemm_fraction * ctx.calibration_gemm_scale[i] * ctx.serving_gemm_scale[i];
}

// Mixtral 8x7B: 8 experts, top-2, 32 MoE layers, hidden 4,096. 64 decodes:
//   without EP: 64 × 2 / 8 = 16 tokens per expert, imbalance 1 (every GPU holds a slice of every expert);
//   EP 2 at the default 1: 16; at imbalance 1.2: 64 × 2 × 1.2 / 8 = 19.2.
// Permutes per token: 32 layers × (2 + 2 × 2) × 4,096 × 2 B = 1,572,864 B; 64 tokens: 100,663,296 B.
TEST(MoeTerms, TokensPerExpertImbalanceAndPermutesHandChecked) {
  const InferContext ctx = moe_ctx("mixtral-8x7b");
  const StepLoad load{64, 1024, 0, 0};
  const StepCost tp2 = step_cost(ctx, moe_plan(2, 1), load);
  EXPECT_DOUBLE_EQ(tp2.moe.tokens_per_expert, 16.0);
  EXPECT_DOUBLE_EQ(tp2.moe.router_imbalance, 1.0);
  EXPECT_DOUBLE_EQ(tp2.moe.imbalance_s, 0.0);
  EXPECT_DOUBLE_EQ(tp2.moe.dispatch_combine_s, 0.0);  // experts TP-split: AllReduces, no AllToAll
  EXPECT_DOUBLE_EQ(tp2.moe.permute_bytes, 100'663'296.0);
  EXPECT_DOUBLE_EQ(tp2.moe.permute_s, 100'663'296.0 / hbm_rate(ctx));
  const StepCost ep2 = step_cost(ctx, moe_plan(2, 2), load);
  EXPECT_DOUBLE_EQ(ep2.moe.router_imbalance, kDefaultRouterImbalance);
  EXPECT_DOUBLE_EQ(ep2.moe.tokens_per_expert, 16.0);
  InferContext skewed = ctx;
  skewed.router_imbalance = 1.2;
  EXPECT_DOUBLE_EQ(step_cost(skewed, moe_plan(2, 2), load).moe.tokens_per_expert, 19.2);
}

// The grouped kernel's measured terms (cost/grouped_gemm.h, Hopper: 5.75 µs per tile wave, 22.6
// GB/s per SM). Mixtral 8x7B on one H200, 64 decodes: 16 rows per expert, all 8 experts touched
// (1 − 0.75^64 ≈ 1). Up: 8 × ceil(16/128) × ceil(28,672/256) = 896 tiles → ceil(896/132) = 7
// waves; down: 8 × 1 × ceil(4,096/256) = 128 tiles → 1 wave. 8 waves × 5.75 µs × 32 layers =
// 1.472 ms. The experts' weights stream at min(weight rate, 132 × 22.6 GB/s = 2.983 TB/s).
// TensorRT-LLM runs CUTLASS grouped kernels (the ones measured); vLLM's Triton fused MoE gets no term.
TEST(MoeTerms, GroupedGemmTileWavesAndStreamHandChecked) {
  const InferContext ctx = moe_ctx("mixtral-8x7b", "h200-sxm", "tensorrt-llm-1.0");
  const StepCost c = step_cost(ctx, moe_plan(1, 1), StepLoad{64, 1024, 0, 0});
  EXPECT_NEAR(c.moe.grouped_tile_s, 32 * 8 * 5.75e-6, 1e-12);
  const double weight_bw = hbm_rate(ctx) * ctx.serving_bw_scale[index_of(Precision::fp8)];
  const double pull = 132 * 22.6e9;
  ASSERT_GT(weight_bw, pull);  // the H200's HBM outruns the grouped kernel's pull
  EXPECT_NEAR(c.moe.grouped_stream_s, c.moe.expert_weight_bytes * (1 / pull - 1 / weight_bw),
              1e-9 * c.moe.grouped_stream_s);
  // A family with no measurement (Blackwell), another kernel (vLLM's Triton), weight-only
  // experts (INT4 dequantised to BF16) and a dense model get neither term.
  const StepCost b200 =
      step_cost(moe_ctx("mixtral-8x7b", "b200", "tensorrt-llm-1.0"), moe_plan(1, 1), StepLoad{64, 1024, 0, 0});
  EXPECT_EQ(b200.moe.grouped_tile_s, 0);
  EXPECT_EQ(b200.moe.grouped_stream_s, 0);
  const StepCost vllm = step_cost(moe_ctx("mixtral-8x7b", "h200-sxm"), moe_plan(1, 1), StepLoad{64, 1024, 0, 0});
  EXPECT_EQ(vllm.moe.grouped_tile_s, 0);
  InferPlan int4 = moe_plan(1, 1);
  int4.weights = Precision::int4;
  EXPECT_EQ(step_cost(ctx, int4, StepLoad{64, 1024, 0, 0}).moe.grouped_tile_s, 0);
  const StepCost dense =
      step_cost(moe_ctx("llama3.1-8b", "h200-sxm", "tensorrt-llm-1.0"), moe_plan(1, 1), StepLoad{64, 1024, 0, 0});
  EXPECT_EQ(dense.moe.grouped_tile_s, 0);
}

// DeepSeek-V3: 256 routed experts, top-8. One decode reads 8 / 256 = 3.125% of them; 4,096
// decodes read 1 − (31/32)^4096 ≈ all. Their bytes per GPU: routed weights × share × 1 B (FP8) / tp,
// streamed at the weights' bandwidth.
TEST(MoeTerms, ExpertsTouchedAndTheirBytesHandChecked) {
  const InferContext ctx = moe_ctx("deepseek-v3", "h200-sxm");
  const InferPlan plan = moe_plan(8, 8);
  const StepCost one = step_cost(ctx, plan, StepLoad{1, 1024, 0, 0});
  EXPECT_DOUBLE_EQ(one.moe.experts_touched, 8.0 / 256);
  EXPECT_NEAR(one.moe.expert_weight_bytes, ctx.weights.routed_experts * (8.0 / 256) * 1.0 / 8,
              1e-6 * one.moe.expert_weight_bytes);
  EXPECT_NEAR(one.moe.expert_weight_s,
              one.moe.expert_weight_bytes * (one.linear_mem_s - one.moe.grouped_stream_s) / one.weight_bytes,
              1e-9 * one.moe.expert_weight_s);
  const StepCost many = step_cost(ctx, plan, StepLoad{4096, 1024, 0, 0});
  EXPECT_NEAR(many.moe.experts_touched, 1.0, 1e-12);
  EXPECT_NEAR(many.moe.expert_weight_bytes, ctx.weights.routed_experts / 8, 1e-9 * many.moe.expert_weight_bytes);
  // Without EP (experts TP-split 8 ways) a GPU reads the same share: 1/8 of each touched expert.
  const StepCost tp_only = step_cost(ctx, moe_plan(8, 1), StepLoad{1, 1024, 0, 0});
  EXPECT_DOUBLE_EQ(tp_only.moe.expert_weight_bytes, one.moe.expert_weight_bytes);
}

// The grouped GEMM's padding time is the expert FLOPs at the GEMM rate × (1/eff − 1), and the
// busiest EP rank adds the expert GEMM time × (imbalance − 1). Mixtral, EP 2 of TP 2, 64 decodes:
// expert FLOPs per GPU = 2 × 64 × routed weights × 2/8 / 2.
TEST(MoeTerms, GroupedGemmPaddingAndImbalanceTimeHandChecked) {
  InferContext ctx = moe_ctx("mixtral-8x7b");
  ctx.router_imbalance = 1.2;
  const StepCost c = step_cost(ctx, moe_plan(2, 2), StepLoad{64, 1024, 0, 0});
  const double expert_s = 2 * 64 * ctx.weights.routed_experts * (2.0 / 8) / 2 / fp8_gemm_rate(ctx);
  const double eff = c.moe.grouped_gemm_efficiency;
  ASSERT_GT(eff, 0);
  ASSERT_LT(eff, 1);  // 16 tokens per expert fill a fraction of a 64- or 128-row tile
  EXPECT_NEAR(c.moe.expert_padding_s, expert_s * (1 / eff - 1), 1e-9 * expert_s);
  EXPECT_NEAR(c.moe.imbalance_s, expert_s / eff * 0.2, 1e-9 * expert_s);
  // Balanced routing (--router-imbalance 1): no imbalance time, the same padding.
  InferContext balanced = ctx;
  balanced.router_imbalance = 1;
  const StepCost b = step_cost(balanced, moe_plan(2, 2), StepLoad{64, 1024, 0, 0});
  EXPECT_DOUBLE_EQ(b.moe.imbalance_s, 0.0);
  EXPECT_DOUBLE_EQ(b.moe.expert_padding_s, c.moe.expert_padding_s);
  EXPECT_NEAR(c.linear_compute_s - b.linear_compute_s, c.moe.imbalance_s, 1e-12);
}

// EP dispatch + combine: two AllToAlls per MoE layer of each token's k copies, the busiest rank
// receiving `imbalance` times its share: 64 tokens × 4,096 × 2 B × 2 / 2 ranks × 1.2.
TEST(MoeTerms, DispatchCombineIsTheEpAllToAll) {
  InferContext ctx = moe_ctx("mixtral-8x7b");
  ctx.router_imbalance = 1.2;
  const StepCost c = step_cost(ctx, moe_plan(2, 2), StepLoad{64, 1024, 0, 0});
  const double bytes = 64.0 * 4096 * 2 * 2 / 2 * 1.2;
  EXPECT_DOUBLE_EQ(c.moe.dispatch_combine_s, 2 * 32 * tp_collective_s(ctx, CollectiveOp::all_to_all, bytes, 2));
  EXPECT_GT(c.moe.dispatch_combine_s, 0);
  EXPECT_LE(c.moe.dispatch_combine_s, c.comm_s);
}

TEST(MoeTerms, DenseModelsHaveNone) {
  const InferContext ctx = make_infer_context(cat(), cat().model("llama3-8b"), cat().gpu("h100-sxm"), cat().engine("vllm"));
  const StepCost c = step_cost(ctx, moe_plan(1, 1), StepLoad{64, 1024, 0, 0});
  EXPECT_EQ(c.moe.tokens_per_expert, 0);
  EXPECT_EQ(c.moe.expert_weight_bytes, 0);
  EXPECT_EQ(c.moe.permute_bytes, 0);
}

// --router-imbalance reaches the step, and below 1 is bad input naming the flag.
TEST(MoeTerms, RouterImbalanceIsSettableAndChecked) {
  InferRequest r;
  r.model = "mixtral-8x7b";
  r.gpu = "h100-sxm";
  r.weights = "fp8";
  r.tp = 2;
  r.ep = 2;
  r.batch = 64;
  r.router_imbalance = 1.5;
  const InferAnswer a = answer_infer(cat(), r);
  EXPECT_DOUBLE_EQ(a.estimate.point.step.moe.router_imbalance, 1.5);
  r.router_imbalance = 0.5;
  try {
    answer_infer(cat(), r);
    ADD_FAILURE() << "imbalance 0.5 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--router-imbalance 0.5"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// The routing kernels (infer/moe_routing.h; vLLM: top-k/softmax, sort, activation, combine, each
// at least 3 µs). Mixtral 8x7B (E 8, top-2, hidden 4,096, expert width 14,336, SwiGLU, 32 MoE
// layers) on H100s at TP 2, 64 decodes, per layer:
//   top-k 64 × (8 × 4 + 2 × 8) = 3,072 B and sort 64 × 2 × 12 = 1,536 B: both at the floor, 3 µs each;
//   activation 64 × 3 × 2 × 14,336 / 2 × 2 B = 5,505,024 B, combine 64 × 4,096 × 2 B × 3 = 1,572,864 B:
//   below the floor too, and their bytes are in the elementwise pass already, so each adds
//   3 µs − bytes / bw. Step: 32 × (12 µs − (5,505,024 + 1,572,864) B / bw).
TEST(MoeTerms, RoutingKernelsAtTheirFloorHandChecked) {
  const InferContext ctx = moe_ctx("mixtral-8x7b");
  ASSERT_EQ(ctx.engine->moe_routing_kernels.size(), 4u);
  const double bw = hbm_rate(ctx);
  const StepCost c = step_cost(ctx, moe_plan(2, 1), StepLoad{64, 1024, 0, 0});
  EXPECT_DOUBLE_EQ(c.moe.routing_kernels, 4);
  EXPECT_NEAR(c.moe.routing_kernels_s, 32 * (12e-6 - (5'505'024.0 + 1'572'864.0) / bw), 1e-12);
  EXPECT_NEAR(c.elementwise_s, c.elementwise_bytes / bw + c.moe.routing_kernels_s, 1e-12);
  // 4,096 decodes: the activation (352 MB) and combine (101 MB) run above the floor and add
  // nothing; top-k (197 KB) and sort (98 KB) stay at it: 32 × 2 × 3 µs.
  const StepCost big = step_cost(ctx, moe_plan(2, 1), StepLoad{4096, 1024, 0, 0});
  EXPECT_NEAR(big.moe.routing_kernels_s, 32 * 2 * 3e-6, 1e-12);
  // TensorRT-LLM launches six (its grouped kernel's setup and a separate gather besides); a
  // dense model has none.
  const StepCost trt = step_cost(moe_ctx("mixtral-8x7b", "h100-sxm", "tensorrt-llm-1.0"), moe_plan(2, 1),
                                 StepLoad{4096, 1024, 0, 0});
  EXPECT_DOUBLE_EQ(trt.moe.routing_kernels, 6);
  EXPECT_NEAR(trt.moe.routing_kernels_s, 32 * 3 * 3e-6, 1e-12);
  const StepCost dense = step_cost(moe_ctx("llama3.1-8b"), moe_plan(1, 1), StepLoad{64, 1024, 0, 0});
  EXPECT_EQ(dense.moe.routing_kernels_s, 0);
}

// The kernels' bytes, by hand: top-k reads fp32 logits and writes int32 ids and fp32 weights;
// the sort reads the ids and writes the permutation and its inverse; the gather and combine move
// a token's hidden state once and k times; the activation's bytes are the caller's.
TEST(MoeTerms, RoutingKernelBytesHandChecked) {
  MoeRoutingLayer l;
  l.routed_tokens = 10;
  l.experts = 128;
  l.top_k = 8;
  l.hidden = 2048;
  l.activation_bytes = 777;
  EXPECT_DOUBLE_EQ(moe_routing_kernel_bytes(MoeRoutingKernel::topk_softmax, l), 10 * (128 * 4 + 8 * 8));
  EXPECT_DOUBLE_EQ(moe_routing_kernel_bytes(MoeRoutingKernel::sort, l), 10 * 8 * 12);
  EXPECT_DOUBLE_EQ(moe_routing_kernel_bytes(MoeRoutingKernel::gemm_setup, l), 0);
  EXPECT_DOUBLE_EQ(moe_routing_kernel_bytes(MoeRoutingKernel::gather, l), 10 * 2048 * 2 * 9);
  EXPECT_DOUBLE_EQ(moe_routing_kernel_bytes(MoeRoutingKernel::combine, l), 10 * 2048 * 2 * 9);
  EXPECT_DOUBLE_EQ(moe_routing_kernel_bytes(MoeRoutingKernel::activation, l), 777);
  // At 1 GB/s: top-k 5,760 B → 5.76 µs, above a 3 µs floor; sort 960 B → the floor; the counted
  // gather at 368,640 B adds nothing over its bytes.
  const std::vector<MoeRoutingKernel> ks{MoeRoutingKernel::topk_softmax, MoeRoutingKernel::sort,
                                         MoeRoutingKernel::gather};
  EXPECT_NEAR(moe_routing_kernels_s(ks, 3e-6, 1e9, l), 5.76e-6 + 3e-6, 1e-15);
  l.routed_tokens = 0;
  EXPECT_EQ(moe_routing_kernels_s(ks, 3e-6, 1e9, l), 0);
}

}  // namespace
}  // namespace gpuplan
