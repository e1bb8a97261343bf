// The FLOP conventions of published training runs and the step time a published rate implies
// (validate/measured_quantity.h), checked by hand against the sources' own formulas and figures.
#include "validate/measured_quantity.h"

#include <cmath>

#include <gtest/gtest.h>

#include "workload/params.h"

namespace gpuplan {
namespace {

// Megatron GPT-530B (Korthikanti et al. 2022, Table 3): 105 layers, h = 20,480, 128 heads,
// GeLU MLP 4h, V = 51,200, s = 2,048.
ModelSpec gpt_530b() {
  ModelSpec m;
  m.id = "gpt-530b";
  m.layers = 105;
  m.hidden = 20480;
  m.heads = 128;
  m.kv_heads = 128;
  m.head_dim = 160;
  m.ffn_hidden = 4 * 20480;
  m.vocab = 51200;
  m.max_seq_len = 2048;
  m.mlp = MlpKind::gelu;
  m.norm = NormKind::layernorm;
  return m;
}

TEST(FlopsCounting, ReadsTheSourcesPhrases) {
  // The texts of shared/data/training-runs.csv's flops_counting column, abridged.
  EXPECT_EQ(parse_flops_counting("n/a (GPU-hours)"), FlopsCounting::not_applicable);
  EXPECT_EQ(parse_flops_counting("Paper eq.: F=96*B*s*l*h^2*(...); INCLUDES full activation recompute and non-causal"),
            FlopsCounting::hardware_full_recompute);
  EXPECT_EQ(parse_flops_counting("BigScience ... counts activation-recompute (factor 4 instead of 3)"),
            FlopsCounting::hardware_full_recompute);
  EXPECT_EQ(parse_flops_counting("Not specified (likely Megatron-style incl. recompute)."),
            FlopsCounting::hardware_full_recompute);
  // "HFU adds recomputed FLOPs" beside an MFU formula does not make it hardware FLOPs.
  EXPECT_EQ(parse_flops_counting("MFU: model FLOPs F=72*B*s*l*h^2*(...) (no recompute, non-causal s^2 attention). "
                                 "HFU adds recomputed FLOPs."),
            FlopsCounting::model_full_attention);
  EXPECT_EQ(parse_flops_counting("Megatron-Bridge flop_utils: CAUSAL attention (s/2 term), no recompute"),
            FlopsCounting::model_causal);
  EXPECT_EQ(parse_flops_counting("Meta's FLOP counting not spelled out in Table 4"), FlopsCounting::unstated);
  EXPECT_EQ(parse_flops_counting(""), FlopsCounting::unstated);
}

TEST(FlopsCounting, ModelFullAttentionIsMegatronsFormula) {
  // Korthikanti et al. 2022 §6 / Narayanan et al. 2021 eq. (3) without recompute: per step
  // F = 72·B·s·l·h²·(1 + s/6h + V/12lh). B = 280: F = 1.85223e18.
  const ModelSpec m = gpt_530b();
  const double l = 105, h = 20480, s = 2048, v = 51200, b = 280;
  const double megatron = 72 * b * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h));
  EXPECT_NEAR(megatron, 1.85223e18, 1e13);
  EXPECT_NEAR(b * s * train_flops_per_token_as(m, 2048, FlopsCounting::model_full_attention) / megatron, 1, 1e-9);
}

TEST(FlopsCounting, HardwareWithRecomputeIsNarayanansFormula) {
  // Narayanan et al. 2021 eq. (3): F = 96·B·s·l·h²·(1 + s/6h + V/16lh): the layers run forward
  // twice (4 forward-equivalents), the output head once (3); 1.3327× the model FLOPs here.
  const ModelSpec m = gpt_530b();
  const double l = 105, h = 20480, s = 2048, v = 51200;
  const double per_token = 96 * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
  const double hw = train_flops_per_token_as(m, 2048, FlopsCounting::hardware_full_recompute);
  EXPECT_NEAR(hw / per_token, 1, 1e-9);
  EXPECT_NEAR(hw / train_flops_per_token_as(m, 2048, FlopsCounting::model_full_attention), 1.33268, 1e-4);
}

TEST(FlopsCounting, CausalIsGpuplansOwnAndHalvesTheSquare) {
  // Causal attention sees (s+1)/2 keys per query instead of s: per layer and token the forward
  // QK^T + PV is 2·h·(s+1) instead of 4·h·s, so over a step (× 3) full − causal = 3·l·2h·(s−1).
  const ModelSpec m = gpt_530b();
  const double causal = train_flops_per_token_as(m, 2048, FlopsCounting::model_causal);
  EXPECT_DOUBLE_EQ(causal, train_flops_per_token(m, 2048));
  EXPECT_DOUBLE_EQ(train_flops_per_token_as(m, 2048, FlopsCounting::unstated), causal);
  const double full = train_flops_per_token_as(m, 2048, FlopsCounting::model_full_attention);
  EXPECT_NEAR(full - causal, 3 * 105 * 2 * 20480.0 * 2047, 1.0);
}

TEST(MeasuredQuantity, MfuReproducesKorthikantisPublishedFigure) {
  // Table 5, 530B with sequence parallelism + selective recompute: 37.83 s per step of 280
  // sequences on 280 A100s (312 TFLOP/s fp16 dense), published MFU 56.0%:
  // 1.85223e18 / (37.83 × 280 × 312e12) = 56.05%.
  const ModelSpec m = gpt_530b();
  StepWork w;
  w.tokens = 280.0 * 2048;
  w.flops = w.tokens * train_flops_per_token_as(m, 2048, FlopsCounting::model_full_attention);
  w.gpus = 280;
  w.peak_flops_per_s = 312e12;
  EXPECT_NEAR(quantity_at_step_time(MeasuredQuantity::mfu, w, 37.83), 56.05, 0.01);
  EXPECT_NEAR(step_time_at_quantity(MeasuredQuantity::mfu, w, 56.0), 37.83 * 56.05 / 56.0, 0.01);
  // TFLOP/s per GPU is the same figure without the peak: 0.5605 × 312 = 174.9.
  EXPECT_NEAR(quantity_at_step_time(MeasuredQuantity::tflops_per_gpu, w, 37.83), 174.9, 0.1);
}

TEST(MeasuredQuantity, TokensPerSecondAndGpuHours) {
  // LLaMA-65B (Touvron et al. 2023): 380 tokens/s/GPU on 2,048 A100s, batch 2,048 × 2,048
  // tokens: 4,194,304 / (380 × 2,048) = 5.3895 s per step.
  StepWork llama;
  llama.tokens = 2048.0 * 2048;
  llama.gpus = 2048;
  EXPECT_NEAR(step_time_at_quantity(MeasuredQuantity::tokens_per_s_per_gpu, llama, 380), 5.3895, 1e-4);
  // DeepSeek-V3 (report Table 1): 2.664M H800 GPU-hours for 14.8T tokens on 2,048 GPUs, batch
  // 15,360 × 4,096 = 62,914,560 tokens: 235,241 steps of 2.664e6 × 3,600 / 2,048 / 235,241
  // = 19.907 s, i.e. 62,914,560 / (19.907 × 2,048) = 1,543 tokens/s/GPU.
  StepWork dsv3;
  dsv3.tokens = 15360.0 * 4096;
  dsv3.gpus = 2048;
  dsv3.run_tokens = 14.8e12;
  const double step = step_time_at_quantity(MeasuredQuantity::gpu_hours, dsv3, 2.664e6);
  EXPECT_NEAR(step, 19.907, 1e-3);
  EXPECT_NEAR(quantity_at_step_time(MeasuredQuantity::tokens_per_s_per_gpu, dsv3, step), 1543.2, 0.1);
}

TEST(MeasuredQuantity, EveryQuantityRoundTripsAndRatesInvertTheTimeError) {
  StepWork w;
  w.tokens = 2048.0 * 8192;
  w.flops = 3.3e19;
  w.gpus = 16384;
  w.peak_flops_per_s = 989e12;
  w.run_tokens = 1e12;
  for (MeasuredQuantity q : {MeasuredQuantity::step_time, MeasuredQuantity::tokens_per_s_per_gpu,
                             MeasuredQuantity::tflops_per_gpu, MeasuredQuantity::mfu, MeasuredQuantity::gpu_hours}) {
    const double v = quantity_at_step_time(q, w, 5.0);
    EXPECT_NEAR(step_time_at_quantity(q, w, v), 5.0, 1e-12) << measured_quantity_name(q);
  }
  // A prediction 1.75× the measured step time is a +75% error on time, and the predicted rate
  // is 1/1.75 of the measured one: measured / predicted rate − 1 = +75% too.
  const double measured = quantity_at_step_time(MeasuredQuantity::tflops_per_gpu, w, 4.0);
  const double predicted = quantity_at_step_time(MeasuredQuantity::tflops_per_gpu, w, 7.0);
  EXPECT_NEAR(measured / predicted - 1, 7.0 / 4.0 - 1, 1e-12);
  // 400 TFLOP/s on an H100 is 40.4% of its 989 TFLOP/s dense BF16 peak.
  const double step_at_400 = step_time_at_quantity(MeasuredQuantity::tflops_per_gpu, w, 400);
  EXPECT_NEAR(quantity_at_step_time(MeasuredQuantity::mfu, w, step_at_400), 40.445, 1e-3);
}

}  // namespace
}  // namespace gpuplan
