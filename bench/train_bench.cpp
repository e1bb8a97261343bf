// Speed of the training evaluator (docs/performance.md, "Training evaluator"): one evaluate()
// per iteration, the plan changing every call, the context built once per model and cluster.
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "cost/gemm_shape_curve.h"
#include "plan/evaluate.h"
#include "plan/resolve.h"

namespace gpuplan {
namespace {

struct Setup {
  const Catalog& catalog = default_catalog();
  TrainContext ctx;
  Setup(const char* model, const char* system)
      : ctx(make_train_context(catalog, catalog.model(model), catalog.gpu(catalog.system(system).gpu),
                               &catalog.system(system), nullptr)) {}
};

// Llama 3 70B on 64 H100 (TP 4 × PP 4 (VP 5) × DP 4, SP, ZeRO-1, fp8), micro-batch and
// recompute changing every call.
void run_dense70b(benchmark::State& state, const TrainContext& ctx) {
  Plan p;
  p.tp = 4;
  p.pp = 4;
  p.vp = 5;
  p.dp = 4;
  p.sp = true;
  p.zero = 1;
  p.seq_len = 8192;
  p.global_batch = 128;
  p.precision = Precision::fp8;
  int i = 0;
  for (auto _ : state) {
    p.micro_batch = 1 << (i & 1);
    p.recompute = (i & 2) ? Recompute::selective : Recompute::none;
    ++i;
    benchmark::DoNotOptimize(evaluate(ctx, p));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_EvaluateDense70B(benchmark::State& state) {
  static const Setup s("llama3-70b", "dgx-h100");
  run_dense70b(state, s.ctx);
}
BENCHMARK(BM_EvaluateDense70B);

// The same plan with a calibration profile's GEMM-shape curves attached (fp8 and bf16, from
// squares 256 … 16384 at 90% of the shape model): the price of --calibration per plan.
void BM_EvaluateDense70BCalibrated(benchmark::State& state) {
  static Setup s("llama3-70b", "dgx-h100");
  static const bool once = [] {
    std::vector<GemmShapeSample> samples;
    for (double n = 256; n <= 16384; n *= 2) {
      samples.push_back({n, n, n, 0.9 * 700e12 * gemm_shape_efficiency(s.ctx.device, n, n, n, 1)});
    }
    auto curves = std::make_shared<GemmShapeCurves>();
    for (Precision p : {Precision::bf16, Precision::fp8}) {
      curves->by_precision[index_of(p)] = make_gemm_shape_curve(s.ctx.device, samples);
    }
    s.ctx.device.shape_curves = curves;
    return true;
  }();
  benchmark::DoNotOptimize(once);
  run_dense70b(state, s.ctx);
}
BENCHMARK(BM_EvaluateDense70BCalibrated);

void BM_EvaluateMoeDeepSeekV3(benchmark::State& state) {
  static const Setup s("deepseek-v3", "dgx-h100");
  Plan p;
  p.pp = 16;
  p.dp = 32;
  p.ep = 32;
  p.zero = 1;
  p.seq_len = 4096;
  p.global_batch = 4096;
  p.precision = Precision::fp8;
  int i = 0;
  for (auto _ : state) {
    p.vp = 1 + (i & 1);
    p.recompute = (i & 2) ? Recompute::full : Recompute::none;
    ++i;
    benchmark::DoNotOptimize(evaluate(s.ctx, p));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EvaluateMoeDeepSeekV3);

// A hybrid model (Nemotron 3 Nano: Mamba-2 mixers, attention layers and MoE layers, three
// kinds of layer) on 32 H100 (PP 4 × EP 8 × DP 8): the kinds' shared ops and the rank classes
// of a model whose stages hold different mixes. Recompute and micro-batch change every call.
void BM_EvaluateHybridNemotronNano(benchmark::State& state) {
  static const Setup s("nemotron-3-nano-30b-a3b", "dgx-h100");
  Plan p;
  p.pp = 4;
  p.dp = 8;
  p.ep = 8;
  p.seq_len = 8192;
  p.global_batch = 256;
  int i = 0;
  for (auto _ : state) {
    p.micro_batch = 1 << (i & 1);
    p.recompute = (i & 2) ? Recompute::selective : Recompute::none;
    ++i;
    benchmark::DoNotOptimize(evaluate(s.ctx, p));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EvaluateHybridNemotronNano);

void BM_EvaluateFsdp8B(benchmark::State& state) {
  static const Setup s("llama3-8b", "dgx-h100");
  Plan p;
  p.dp = 64;
  p.zero = 3;
  p.seq_len = 8192;
  p.global_batch = 512;
  int i = 0;
  for (auto _ : state) {
    p.micro_batch = 1 << (i & 3);
    ++i;
    benchmark::DoNotOptimize(evaluate(s.ctx, p));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EvaluateFsdp8B);

void BM_MakeTrainContext(benchmark::State& state) {
  const Catalog& c = default_catalog();
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        make_train_context(c, c.model("deepseek-v3"), c.gpu("h100-sxm"), &c.system("dgx-h100"), nullptr));
  }
}
BENCHMARK(BM_MakeTrainContext);

}  // namespace
}  // namespace gpuplan
