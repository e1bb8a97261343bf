// The dense-training mechanisms of issue 13 (docs/model/training.md §3–5): ring attention for
// context parallelism, FSDP/ZeRO-3 gathers per unit with prefetch, FSDP under a pipeline,
// the pipeline split that counts the embedding and head as layers, and memory headroom.
// Closed forms are checked by hand; the evaluator by the properties they imply.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/error.h"
#include "core/units.h"
#include "plan/evaluate.h"
#include "plan/placement.h"
#include "plan/train_request.h"
#include "workload/test_models.h"

namespace gpuplan {
namespace {

TEST(PipelineChunkLayers, EvenSplitIsTheFloorOfTheLayerShare) {
  // 126 layers over 16 chunks: chunk c gets [⌊126c/16⌋, ⌊126(c+1)/16⌋): 0–7, 7–15, ..., 118–126.
  EXPECT_EQ(pipeline_chunk_layers(126, 16, false, 0).begin, 0);
  EXPECT_EQ(pipeline_chunk_layers(126, 16, false, 0).end, 7);
  EXPECT_EQ(pipeline_chunk_layers(126, 16, false, 1).end, 15);
  EXPECT_EQ(pipeline_chunk_layers(126, 16, false, 15).begin, 118);
  EXPECT_EQ(pipeline_chunk_layers(126, 16, false, 15).end, 126);
}

TEST(PipelineChunkLayers, EmbeddingAndHeadSlotsGiveLlama3Split) {
  // Llama 3 405B (arXiv:2407.21783 sec. 3.3.2): 126 layers + embedding + head = 128 slots on
  // 16 stages, 8 slots each: the first stage holds the embedding and 7 layers (0–6), the middle
  // stages 8 layers (stage 1: 7–14), the last 7 layers (119–125) and the head.
  const LayerRange first = pipeline_chunk_layers(126, 16, true, 0);
  const LayerRange second = pipeline_chunk_layers(126, 16, true, 1);
  const LayerRange last = pipeline_chunk_layers(126, 16, true, 15);
  EXPECT_EQ(first.begin, 0);
  EXPECT_EQ(first.end, 7);
  EXPECT_EQ(second.begin, 7);
  EXPECT_EQ(second.end, 15);
  EXPECT_EQ(last.begin, 119);
  EXPECT_EQ(last.end, 126);
  std::int64_t total = 0;
  for (int c = 0; c < 16; ++c) {
    const LayerRange r = pipeline_chunk_layers(126, 16, true, c);
    total += r.end - r.begin;
  }
  EXPECT_EQ(total, 126);
}

TEST(PipelineChunkLayers, OneSlotPerChunkLeavesTheEndChunksToEmbeddingAndHead) {
  // 126 layers on 16 × 8 = 128 chunks with slots: one slot each; chunk 0 is the embedding
  // alone, chunk 1 layer 0, chunk 127 the head alone.
  EXPECT_EQ(pipeline_chunk_layers(126, 128, true, 0).end - pipeline_chunk_layers(126, 128, true, 0).begin, 0);
  EXPECT_EQ(pipeline_chunk_layers(126, 128, true, 1).begin, 0);
  EXPECT_EQ(pipeline_chunk_layers(126, 128, true, 1).end, 1);
  EXPECT_EQ(pipeline_chunk_layers(126, 128, true, 127).end - pipeline_chunk_layers(126, 128, true, 127).begin, 0);
}

TEST(RingAttention, EachStepHidesOnlyBehindItsOwnAttention) {
  // 3 steps; forward: 2 s transfer behind 1 s of attention → 1 s exposed per step, 3 s in all
  // of 6 s; backward: 4 s behind 5 s → hidden.
  const RingAttentionCost c = ring_attention_cost(3, 2, 4, 1, 5);
  EXPECT_DOUBLE_EQ(c.fwd_comm_s, 6);
  EXPECT_DOUBLE_EQ(c.fwd_exposed_s, 3);
  EXPECT_DOUBLE_EQ(c.bwd_comm_s, 12);
  EXPECT_DOUBLE_EQ(c.bwd_exposed_s, 0);
}

TEST(FsdpGathers, PrefetchHidesAllButTheFirstGatherAndTheLastReduceScatter) {
  // 4 units, gather 1 s, reduce-scatter 1 s, forward 0.5 s and backward 3 s per unit.
  // Total: 4 × (2 gathers + 1 reduce-scatter) = 12 s. Forward: the first gather (1) + 3 ×
  // (1 − 0.5) = 2.5 s; backward: the first gather (1) + 3 × max(0, 2 − 3) + the last
  // reduce-scatter (1) = 2 s. Exposed 4.5 s.
  const CommCost c = fsdp_micro_batch_cost(4, 1, 1, 0.5, 3);
  EXPECT_DOUBLE_EQ(c.total_s, 12);
  EXPECT_DOUBLE_EQ(c.exposed_s, 4.5);
  // One unit: nothing to hide behind.
  const CommCost one = fsdp_micro_batch_cost(1, 1, 2, 10, 10);
  EXPECT_DOUBLE_EQ(one.exposed_s, one.total_s);
  EXPECT_DOUBLE_EQ(one.total_s, 4);
}

TEST(FsdpGathers, HiddenGathersCostTheComputeTheirSmShare) {
  // As above with NCCL holding a quarter of the SMs. Forward: the hidden part of each gather is
  // already smaller than what sticks out, 1 + 3 × max(1 − 0.5, 0.25 × 1) = 2.5 s (unchanged);
  // backward: the gather and reduce-scatter beside each unit's 3 s are hidden and cost it a
  // quarter of themselves, 1 + 3 × max(2 − 3, 0.25 × 2) + 1 = 3.5 s. Exposed 6 s of 12.
  const CommCost c = fsdp_micro_batch_cost(4, 1, 1, 0.5, 3, 0.25);
  EXPECT_DOUBLE_EQ(c.total_s, 12);
  EXPECT_DOUBLE_EQ(c.exposed_s, 6);
  // No SMs held: the plain prefetch.
  EXPECT_DOUBLE_EQ(fsdp_micro_batch_cost(4, 1, 1, 0.5, 3, 0).exposed_s, 4.5);
}

using testing::DgxH100;

TEST(ContextParallel, NoLongerFreeAtShortSequences) {
  // GPT-3 175B (96 K/V heads) under TP 8 on 16 H100s, 2,048 tokens: CP 2 with two sequences per
  // micro-batch does the same work per GPU as DP 2 with one (same rows, same attention FLOPs),
  // but its CP group spans two nodes: each ring step sends 2 × 1,024 tokens × 12 heads × 2 ×
  // 128 × 2 B = 12.6 MB over a 50 GB/s NIC share (≈ 0.25 ms), far more than the step's
  // attention, so it is exposed and the step is longer.
  DgxH100 f;
  const ModelSpec m = testing::gpt3_175b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan one;
  one.seq_len = 2048;
  one.tp = 8;
  one.sp = true;
  one.dp = 2;
  one.zero = 1;
  one.micro_batch = 1;
  one.global_batch = 16;
  Plan two = one;
  two.cp = 2;
  two.dp = 1;
  two.micro_batch = 2;
  const Estimate a = evaluate(ctx, one);
  const Estimate b = evaluate(ctx, two);
  ASSERT_TRUE(a.valid() && b.valid()) << a.reason_text() << b.reason_text();
  EXPECT_GT(b.breakdown.cp.total_s, 0);
  EXPECT_GT(b.breakdown.cp.exposed_s, 0);
  EXPECT_GT(b.step_time_s, a.step_time_s);
}

TEST(ContextParallel, LongSequencesHideTheRing) {
  // At 65,536 tokens a ring step's attention (quadratic in the block) covers its transfer.
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan p;
  p.seq_len = 65536;
  p.cp = 8;
  p.dp = 1;
  p.zero = 1;
  p.global_batch = 1;
  const Estimate e = evaluate(ctx, p);
  ASSERT_TRUE(e.valid()) << e.reason_text();
  EXPECT_GT(e.breakdown.cp.total_s, 0);
  EXPECT_LT(e.breakdown.cp.exposed_s, 0.05 * e.breakdown.cp.total_s);
}

TEST(ContextParallel, ActivationsPerGpuDivideByCp) {
  // Same micro-batch, CP 2: every stored activation is per token, and each GPU holds half.
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan p;
  p.seq_len = 8192;
  p.dp = 2;
  p.zero = 1;
  p.global_batch = 2;
  Plan q = p;
  q.cp = 2;
  q.dp = 1;
  q.global_batch = 1;
  const Estimate a = evaluate(ctx, p);
  const Estimate b = evaluate(ctx, q);
  ASSERT_TRUE(a.valid() && b.valid());
  EXPECT_NEAR(b.memory.activations_bytes / a.memory.activations_bytes, 0.5, 0.01);
}

TEST(Fsdp, UnderAPipelineGathersOncePerStepLikeZeroOne) {
  // PyTorch's pipelining keeps the stage's weights gathered and its gradients unsharded over
  // the micro-batches: the step's communication and memory are the distributed optimizer's.
  // Under PyTorch's FSDP (torchtitan): Megatron-Core's edge bucket is its own DDP's, ZeRO 0-2.
  DgxH100 f;
  const ModelSpec m = testing::gpt3_175b();
  TrainOptions options;
  options.framework = &resolve_framework(f.catalog, "pytorch-fsdp");
  ASSERT_DOUBLE_EQ(options.framework->dp_bucket_params, 0.0);
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr, options);
  Plan p;
  p.seq_len = 2048;
  p.tp = 8;
  p.pp = 8;
  p.dp = 4;
  p.sp = true;
  p.global_batch = 64;
  p.zero = 1;
  Plan q = p;
  q.zero = 3;
  const Estimate a = evaluate(ctx, p);
  const Estimate b = evaluate(ctx, q);
  ASSERT_TRUE(a.valid() && b.valid());
  EXPECT_DOUBLE_EQ(a.step_time_s, b.step_time_s);
  EXPECT_DOUBLE_EQ(a.memory.total_bytes, b.memory.total_bytes);
}

TEST(Fsdp, WithoutPipelineGathersEveryMicroBatchPerLayer) {
  // Llama 3 8B, FSDP over 8 GPUs, 4 micro-batches: 32 layer gathers forward and backward and
  // 32 reduce-scatters per micro-batch; total = 4 × per-micro-batch total, and more than ZeRO-1's.
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan p;
  p.seq_len = 4096;
  p.dp = 8;
  p.zero = 3;
  p.global_batch = 32;
  const Estimate e = evaluate(ctx, p);
  Plan z1 = p;
  z1.zero = 1;
  const Estimate e1 = evaluate(ctx, z1);
  ASSERT_TRUE(e.valid() && e1.valid());
  EXPECT_GT(e.breakdown.dp.total_s, 2 * e1.breakdown.dp.total_s);
  EXPECT_GE(e.breakdown.dp.exposed_s, 0);
  EXPECT_LE(e.breakdown.dp.exposed_s, e.breakdown.dp.total_s);
}

// The distributed optimizer's reduce-scatter and all-gather hidden behind one micro-batch's
// backward and forward still hold NCCL's SMs (16 of the H100's 132, data/fitted/efficiency/
// hopper.toml `dp_comm_sms`): exposed = 16/132 of the communication; none without the figure.
TEST(DataParallel, HiddenCollectivesCostTheComputeTheirSmShare) {
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  // Without the framework's buckets, so that both collectives are hidden whole.
  Framework unbucketed = *default_framework(f.catalog);
  unbucketed.dp_bucket_params = 0;
  TrainOptions plain;
  plain.framework = &unbucketed;
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr, plain);
  ASSERT_DOUBLE_EQ(static_cast<double>(ctx.device.sm_count), 132.0);
  ASSERT_DOUBLE_EQ(ctx.efficiency->dp_comm_sms, 16);
  Plan p;
  p.seq_len = 4096;
  p.dp = 8;
  p.zero = 1;
  p.global_batch = 32;
  const Estimate e = evaluate(ctx, p);
  ASSERT_TRUE(e.valid());
  // Precondition: both collectives together are shorter than one micro-batch's forward, so
  // each is hidden behind its pass.
  ASSERT_LT(e.breakdown.dp.total_s, e.breakdown.forward_s / e.micro_batches);
  EXPECT_NEAR(e.breakdown.dp.exposed_s, 16.0 / 132.0 * e.breakdown.dp.total_s, 1e-12);
  Efficiency none = *ctx.efficiency;
  none.dp_comm_sms = 0;
  TrainOptions options = plain;
  options.efficiency = &none;
  const TrainContext ctx0 = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr, options);
  const Estimate e0 = evaluate(ctx0, p);
  ASSERT_TRUE(e0.valid());
  EXPECT_DOUBLE_EQ(e0.breakdown.dp.exposed_s, 0);
  EXPECT_NEAR(e.step_time_s - e0.step_time_s, e.breakdown.dp.exposed_s, 1e-12);
}

// A framework's own TP overlap share replaces the family's: with TP 8 inside one DGX H100 each
// layer's collectives (AllGather + ReduceScatter under SP) are shorter than its GEMMs, so the
// hidden part is the share itself and exposed = total x (1 - share): x (1 - 0.80) with Hopper's
// userbuffers figure, x (1 - 0.21) with the framework's; the step differs by exactly that.
TEST(TpOverlap, FrameworkShareReplacesTheFamilys) {
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  Plan p;  // four 8,192-token sequences a micro-batch: the layers are GPU-bound, not host-bound
  p.seq_len = 8192;
  p.tp = 8;
  p.sp = true;
  p.micro_batch = 4;
  p.global_batch = 4;
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  ASSERT_DOUBLE_EQ(ctx.efficiency->tp_comm_overlap_fraction, 0.80);
  ASSERT_LT(ctx.framework->tp_comm_overlap_fraction, 0);  // megatron-core: the family's
  const Estimate family = evaluate(ctx, p);
  ASSERT_TRUE(family.valid());
  ASSERT_GT(family.breakdown.tp.total_s, 0);
  EXPECT_NEAR(family.breakdown.tp.exposed_s, (1 - 0.80) * family.breakdown.tp.total_s, 1e-12);
  Framework own = *ctx.framework;
  own.tp_comm_overlap_fraction = 0.21;
  TrainOptions options;
  options.framework = &own;
  const TrainContext ctx27 = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr, options);
  const Estimate framework = evaluate(ctx27, p);
  ASSERT_TRUE(framework.valid());
  EXPECT_DOUBLE_EQ(framework.breakdown.tp.total_s, family.breakdown.tp.total_s);
  EXPECT_NEAR(framework.breakdown.tp.exposed_s, (1 - 0.21) * family.breakdown.tp.total_s, 1e-12);
  EXPECT_NEAR(framework.step_time_s - family.step_time_s, (0.80 - 0.21) * family.breakdown.tp.total_s, 1e-9);
}

TEST(BucketWalk, LastBucketHoldsTheFinalPiece) {
  // Buckets of 8: 10 closes one alone; 4 + 4 = 8 closes the next; 3 opens the last.
  BucketWalk w{8};
  for (double piece : {10.0, 4.0, 4.0, 3.0}) w.add(piece);
  EXPECT_DOUBLE_EQ(w.last_params, 3);
  // The final piece closes the bucket it joins: 5 + 5 = 10 ≥ 8, the bucket is both.
  BucketWalk v{8};
  for (double piece : {4.0, 4.0, 5.0, 5.0}) v.add(piece);
  EXPECT_DOUBLE_EQ(v.last_params, 10);
  // No bucket size: one bucket of everything.
  BucketWalk one{0};
  for (double piece : {10.0, 4.0, 4.0, 3.0}) one.add(piece);
  EXPECT_DOUBLE_EQ(one.last_params, 21);
}

// Megatron-Core's edge bucket (docs/model/training.md §3, "Edge buckets"): Llama 3 8B at TP 1
// under buckets of 128 Mi (134,217,728) parameters. Every piece is larger than a bucket (the head
// 128,256 × 4,096 = 525,336,576, a layer 218,112,000), so each closes its own and the last
// bucket is the embedding table alone: its reduce-scatter (bf16 gradients) and all-gather
// (bf16 weights) are exposed whole, the rest hidden as before (the SM share).
TEST(DataParallel, EdgeBucketIsReducedAfterTheBackwardAndGatheredBeforeTheForward) {
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  ASSERT_DOUBLE_EQ(ctx.framework->dp_bucket_params, 134217728.0);
  Plan p;
  p.seq_len = 4096;
  p.dp = 8;
  p.zero = 1;
  p.global_batch = 32;
  const Estimate e = evaluate(ctx, p);
  ASSERT_TRUE(e.valid());
  const double table_bytes = 128256.0 * 4096 * 2;
  const Placement pl = place_plan(p, ctx.domain_gpus);
  const double rs = estimate_collective_time(collective_request(CollectiveOp::reduce_scatter, table_bytes, pl.grad),
                                             ctx.topology).time_s;
  const double ag = estimate_collective_time(collective_request(CollectiveOp::all_gather, table_bytes, pl.grad),
                                             ctx.topology).time_s;
  EXPECT_DOUBLE_EQ(e.breakdown.dp_edge.total_s, rs + ag);
  EXPECT_DOUBLE_EQ(e.breakdown.dp_edge.exposed_s, rs + ag);
  // The rest (all the other parameters) is hidden behind the passes, less NCCL's SM share.
  const double rest = e.breakdown.dp.total_s - e.breakdown.dp_edge.total_s;
  EXPECT_NEAR(e.breakdown.dp.exposed_s - e.breakdown.dp_edge.exposed_s, 16.0 / 132.0 * rest, 1e-12);
  // Without the framework's buckets nothing is exposed whole, and the step is shorter.
  Framework unbucketed = *ctx.framework;
  unbucketed.dp_bucket_params = 0;
  TrainOptions options;
  options.framework = &unbucketed;
  const Estimate e0 = evaluate(make_train_context(f.catalog, m, f.gpu, &f.system, nullptr, options), p);
  ASSERT_TRUE(e0.valid());
  EXPECT_DOUBLE_EQ(e0.breakdown.dp_edge.total_s, 0);
  EXPECT_GT(e.step_time_s, e0.step_time_s);
}

// With fp8 primary weights gathered in fp8 (a per-tensor recipe), the 16-bit parameters join the
// last fp8 bucket's group (partition_buckets): the edge is layer 0's fp8 GEMM weights
// (4,096 × 6,144 + 4,096 × 4,096 + 2 × 4,096 × 14,336 + 14,336 × 4,096 = 218,103,808) plus every
// 16-bit parameter (the embedding and the head, 2 × 525,336,576, and the norms: 2 × 4,096 a
// layer and the final one, 266,240): gradients reduced in bf16, weights gathered 1 byte
// (fp8) and 2 bytes (the rest).
TEST(DataParallel, Fp8WeightsPutEveryBf16ParameterInTheEdgeBucket) {
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan p;
  p.seq_len = 4096;
  p.dp = 8;
  p.zero = 1;
  p.global_batch = 32;
  p.precision = Precision::fp8;
  p.scaling = ScalingRecipe::tensorwise;
  p.fp8_params = true;
  const Estimate e = evaluate(ctx, p);
  ASSERT_TRUE(e.valid()) << e.reason_text();
  const double fp8 = 218103808.0;
  const double sixteen = 2 * 525336576.0 + 266240.0;
  const Placement pl = place_plan(p, ctx.domain_gpus);
  const double rs = estimate_collective_time(
                        collective_request(CollectiveOp::reduce_scatter, (fp8 + sixteen) * 2, pl.grad), ctx.topology)
                        .time_s;
  const double ag = estimate_collective_time(
                        collective_request(CollectiveOp::all_gather, fp8 * 1 + sixteen * 2, pl.grad), ctx.topology)
                        .time_s;
  EXPECT_NEAR(e.breakdown.dp_edge.exposed_s, rs + ag, 1e-9 * (rs + ag));
}

TEST(PipelineSlots, Llama405bSlowestStageIsAMiddleOne) {
  // 405B on PP 16: with the even split the last stage holds 8 layers and the output head; with
  // the embedding and head as slots it holds 7 and the head, so the step can only get shorter.
  DgxH100 f;
  const Catalog& cat = f.catalog;
  const ModelSpec& m = cat.model("llama3.1-405b");
  const TrainContext ctx = make_train_context(cat, m, f.gpu, &f.system, nullptr);
  Plan p;
  p.seq_len = 8192;
  p.tp = 8;
  p.pp = 16;
  p.dp = 1;
  p.sp = true;
  p.zero = 1;
  p.global_batch = 16;
  Plan q = p;
  q.pp_embedding_head_slots = true;
  const Estimate a = evaluate(ctx, p);
  const Estimate b = evaluate(ctx, q);
  ASSERT_TRUE(a.valid() && b.valid()) << a.reason_text() << b.reason_text();
  EXPECT_LT(b.step_time_s, a.step_time_s);
  // Same work in all: the split moves layers, it does not add or drop any.
  EXPECT_NEAR(b.hardware_flops_per_step / a.hardware_flops_per_step, 1.0, 1e-12);
}

TEST(PipelineSlots, NeedsAPipeline) {
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan p;
  p.seq_len = 4096;
  p.pp_embedding_head_slots = true;
  const Estimate e = evaluate(ctx, p);
  EXPECT_FALSE(e.valid());
}

TEST(MemoryHeadroom, PlanFitsOnlyWithRoomToSpare) {
  DgxH100 f;
  const ModelSpec m = testing::llama3_8b();
  Plan p;
  p.seq_len = 4096;
  p.dp = 8;
  p.zero = 3;
  p.global_batch = 8;
  const TrainContext plain = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  const Estimate e = evaluate(plain, p);
  ASSERT_TRUE(e.feasible()) << e.reason_text();
  const double free_bytes = plain.usable_memory_bytes - e.memory.total_bytes;
  TrainOptions fits;
  fits.memory_headroom_bytes = 0.9 * free_bytes;
  TrainOptions too_much;
  too_much.memory_headroom_bytes = 1.1 * free_bytes;
  EXPECT_TRUE(evaluate(make_train_context(f.catalog, m, f.gpu, &f.system, nullptr, fits), p).feasible());
  const Estimate over = evaluate(make_train_context(f.catalog, m, f.gpu, &f.system, nullptr, too_much), p);
  EXPECT_EQ(over.verdict.kind(), Infeasibility::Kind::out_of_memory);
  EXPECT_NE(std::string(over.reason_text()).find("headroom"), std::string::npos) << over.reason_text();
  // Same prediction otherwise: headroom changes whether a plan fits, not its numbers.
  EXPECT_DOUBLE_EQ(over.step_time_s, e.step_time_s);
}

TEST(MemoryHeadroom, BadValuesAreErrorsNamingTheFlag) {
  TrainRequest r;
  r.model = "llama3-8b";
  r.gpu = "h100-sxm";
  r.gpus = 8;
  r.seq_len = 4096;
  for (double bad : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    r.memory_headroom_gib = bad;
    try {
      answer_train(default_catalog(), r);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--memory-headroom-gib"), std::string::npos) << e.what();
    }
  }
  r.memory_headroom_gib = 2;
  EXPECT_NO_THROW(answer_train(default_catalog(), r));
  EXPECT_DOUBLE_EQ(parse_memory_headroom(2), 2 * kGiB);
}

}  // namespace
}  // namespace gpuplan
