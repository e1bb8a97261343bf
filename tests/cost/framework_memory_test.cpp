// Memory as the framework's allocator sees it (cost/framework_memory.h, docs/model/training.md
// "Memory as the allocator sees it"): each term by hand, the phase of the peak, and the verdict
// with its margin ("tight" inside the framework's own error).
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "cost/framework_memory.h"
#include "cost/memory.h"
#include "plan/evaluate.h"

namespace gpuplan {
namespace framework_memory_test {

TEST(FrameworkMemory, Fp32ModelMovesTheMasterCopyIntoTheWeights) {
  FrameworkMemory fm;
  fm.fp32_model = true;
  const StateBytes s = framework_state_bytes(fm, StateBytes{});
  EXPECT_DOUBLE_EQ(s.weight, 4);
  EXPECT_DOUBLE_EQ(s.grad, 4);
  EXPECT_DOUBLE_EQ(s.optimizer, 8);  // m and v; the fp32 weights are the master copy
  EXPECT_DOUBLE_EQ(s.weight + s.grad + s.optimizer, 16);
  const StateBytes same = framework_state_bytes(FrameworkMemory{}, StateBytes{});
  EXPECT_DOUBLE_EQ(same.weight, 2);
  EXPECT_DOUBLE_EQ(same.optimizer, 12);
}

// 1e9 parameters, fp32 model: 4 + 8 B of states; 20 GB of activations, 3 GB of loss buffers,
// 2 GB of autocast copies, 1 GB of eager temporaries. Gradients freed between steps: the
// backward's start holds everything but the 4 GB of gradients.
TEST(FrameworkMemory, FreedGradientsMakeThePeakTheLargerPhase) {
  MemoryInputs in;
  in.dense_params = 1e9;
  in.bytes = StateBytes{4, 4, 8};
  in.stored_activation_bytes = 20e9;
  in.head_buffer_bytes = 3e9;
  in.weight_copy_bytes = 2e9;
  in.eager_saved_bytes = 1e9;
  in.runtime_bytes = 0.5e9;
  in.fragmentation_fraction = 0.1;
  in.grads_freed_between_steps = true;
  MemoryBreakdown m = memory_per_gpu(in);
  EXPECT_DOUBLE_EQ(m.backward_start_bytes, 4e9 + 8e9 + 20e9 + 3e9 + 2e9 + 1e9);
  EXPECT_DOUBLE_EQ(m.optimizer_step_bytes, 4e9 + 4e9 + 8e9);
  EXPECT_EQ(m.peak, MemoryPeak::backward_start);
  EXPECT_DOUBLE_EQ(m.total_bytes, 38e9 * 1.1 + 0.5e9);
  EXPECT_FALSE(memory_terms_at_peak(m).gradients);
  // Without activations the optimizer step is the peak, with its temporaries.
  in.stored_activation_bytes = 0;
  in.head_buffer_bytes = 0;
  in.optimizer_temp_bytes = 4e9;
  m = memory_per_gpu(in);
  EXPECT_EQ(m.peak, MemoryPeak::optimizer_step);
  EXPECT_DOUBLE_EQ(m.total_bytes, (16e9 + 4e9) * 1.1 + 0.5e9);
  EXPECT_TRUE(memory_terms_at_peak(m).gradients);
  EXPECT_FALSE(memory_terms_at_peak(m).activations);
}

// Persistent gradients (the reference frameworks): the sum of every term, as before.
TEST(FrameworkMemory, PersistentGradientsKeepTheSum) {
  MemoryInputs in;
  in.dense_params = 1e9;
  in.stored_activation_bytes = 10e9;
  in.head_buffer_bytes = 1e9;
  const MemoryBreakdown m = memory_per_gpu(in);
  EXPECT_DOUBLE_EQ(m.total_bytes, 16e9 + 11e9);
  EXPECT_EQ(m.peak, MemoryPeak::backward_start);
}

TEST(FrameworkMemory, LossBytesPerLogit) {
  FrameworkMemory fm;
  EXPECT_DOUBLE_EQ(loss_bytes_per_logit(fm, true, 2), 6);  // the reference: bf16 logits + fp32
  fm.loss_bytes_per_logit_eager = 14;
  fm.loss_bytes_per_logit_fused = 6;
  EXPECT_DOUBLE_EQ(loss_bytes_per_logit(fm, true, 2), 14);
  EXPECT_DOUBLE_EQ(loss_bytes_per_logit(fm, false, 2), 6);
}

// A Llama-3.2-1B-shaped layer (h 2,048, 32 heads of 64, 8 KV heads, FFN 8,192), 1,024 tokens in
// bf16, by hand: norms 2 × 1,024 × 2,048 × 6 B; RoPE 2 × 1,024 × 40 × 64 × 2 B; attention output
// 1,024 × 2,048 × 2 B; SwiGLU 1,024 × 8,192 × 2 B.
TEST(FrameworkMemory, EagerSavedTensorsByHand) {
  ModelSpec m;
  m.layers = 16;
  m.hidden = 2048;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 64;
  m.ffn_hidden = 8192;
  m.vocab = 128256;
  FrameworkMemory fm;
  fm.eager_norm_bytes = 6;
  fm.eager_rope_copies = 2;
  fm.eager_attention_output_copies = 1;
  fm.eager_swiglu_copies = 1;
  OpShape s;
  s.micro_batch = 1;
  s.seq_len = 1024;
  s.eager_elementwise = true;
  const double expected = 2 * 1024 * 2048 * 6.0 + 2 * 1024 * 40 * 64 * 2.0 + 1024 * 2048 * 2.0 + 1024 * 8192 * 2.0;
  const LayerActivations none = eager_saved_activations(fm, m, 0, s, Recompute::none);
  EXPECT_DOUBLE_EQ(none.stored_bytes, expected);
  EXPECT_DOUBLE_EQ(none.working_bytes, 0);
  const LayerActivations full = eager_saved_activations(fm, m, 0, s, Recompute::full);
  EXPECT_DOUBLE_EQ(full.stored_bytes, 0);
  EXPECT_DOUBLE_EQ(full.working_bytes, expected);
  s.eager_elementwise = false;  // torch.compile: none of it
  EXPECT_DOUBLE_EQ(eager_saved_activations(fm, m, 0, s, Recompute::none).stored_bytes, 0);
}

// The pytorch framework on one GPU: every term of the table in docs/model/training.md is there,
// and the verdict is a margin: fits, tight inside the framework's error, out of memory.
TEST(FrameworkMemory, PytorchOnOneGpuNamesEveryTermAndJudgesTheMargin) {
  const Catalog& cat = default_catalog();
  const ModelSpec& model = *cat.find_model("llama3.1-8b");
  const Gpu& gpu = cat.gpu("h100-sxm");
  TrainOptions o;
  o.framework = &resolve_framework(cat, "pytorch");
  Plan p;
  p.seq_len = 2048;
  p.eager_elementwise = true;
  o.usable_memory_bytes = 1e12;  // measure first, then set the capacity around the peak
  const Estimate wide = evaluate(make_train_context(cat, model, gpu, nullptr, nullptr, o), p);
  const MemoryBreakdown& m = wide.memory;
  const double params = 8030261248.0;
  EXPECT_NEAR(m.weights_bytes / params, 4, 1e-9);
  EXPECT_NEAR(m.gradients_bytes / params, 4, 1e-9);
  EXPECT_NEAR(m.optimizer_bytes / params, 8, 1e-9);
  // autocast copies: every parameter but the untied embedding table.
  EXPECT_NEAR(m.weight_copies_bytes, 2 * (params - 128256.0 * 4096), 1);
  EXPECT_NEAR(m.head_buffers_bytes, 2048.0 * 128256 * 14, 1);
  EXPECT_GT(m.eager_temporaries_bytes, 0);
  EXPECT_DOUBLE_EQ(m.runtime_bytes, 0.75 * 1024 * 1024 * 1024);  // CUDA context; one GPU: no NCCL buffers
  EXPECT_TRUE(m.grads_freed_between_steps);
  EXPECT_DOUBLE_EQ(wide.memory_error_fraction, 0.08);

  auto with_capacity = [&](double bytes) {
    TrainOptions c = o;
    c.usable_memory_bytes = bytes;
    return evaluate(make_train_context(cat, model, gpu, nullptr, nullptr, c), p);
  };
  const Estimate roomy = with_capacity(m.total_bytes * 1.2);
  EXPECT_TRUE(roomy.fits());
  EXPECT_FALSE(roomy.memory_tight);
  EXPECT_NEAR(roomy.memory_margin_bytes, m.total_bytes * 0.2, 1);
  const Estimate tight = with_capacity(m.total_bytes * 1.05);
  EXPECT_TRUE(tight.fits());
  EXPECT_TRUE(tight.memory_tight);
  const Estimate over = with_capacity(m.total_bytes * 0.95);
  EXPECT_FALSE(over.fits());
  EXPECT_LT(over.memory_margin_bytes, 0);
}

// Gradient accumulation keeps the first micro-batch's gradients through the others' backward:
// with two micro-batches the gradients are in the backward's start again.
TEST(FrameworkMemory, GradientAccumulationKeepsTheGradients) {
  const Catalog& cat = default_catalog();
  TrainOptions o;
  o.framework = &resolve_framework(cat, "pytorch");
  o.usable_memory_bytes = 1e12;
  const TrainContext ctx = make_train_context(cat, *cat.find_model("llama3.1-8b"), cat.gpu("h100-sxm"), nullptr, nullptr, o);
  Plan p;
  p.seq_len = 2048;
  p.global_batch = 1;
  const MemoryBreakdown one = evaluate(ctx, p).memory;
  p.global_batch = 2;
  const MemoryBreakdown two = evaluate(ctx, p).memory;
  EXPECT_TRUE(one.grads_freed_between_steps);
  EXPECT_FALSE(two.grads_freed_between_steps);
  EXPECT_NEAR(two.backward_start_bytes - one.backward_start_bytes, two.gradients_bytes, 1);
}

// The driver's share comes off the GPU's usable memory (Hopper: 0.47 GiB, measured on an H100).
TEST(FrameworkMemory, DriverReserveComesOffTheCapacity) {
  const Catalog& cat = default_catalog();
  const Gpu& gpu = cat.gpu("h100-sxm");
  const TrainContext ctx = make_train_context(cat, *cat.find_model("llama3.1-8b"), gpu, nullptr, nullptr, {});
  EXPECT_NEAR(ctx.driver_reserved_bytes / (1024.0 * 1024 * 1024), 0.47, 1e-9);
  EXPECT_DOUBLE_EQ(ctx.usable_memory_bytes, gpu.usable_memory_bytes - ctx.driver_reserved_bytes);
}

}  // namespace framework_memory_test
}  // namespace gpuplan
