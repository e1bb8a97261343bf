// Speed of the inference evaluator and searches (docs/performance.md, "Inference"): one
// evaluate_inference() per iteration with the load changing every call; one whole infer-search;
// one whole recommend --serve over every catalog GPU with an offer.
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "infer/disagg_search.h"
#include "infer/evaluate.h"
#include "infer/search.h"
#include "catalog/system_choice.h"
#include "econ/serve_recommend_request.h"

namespace gpuplan {
namespace {

struct Setup {
  const Catalog& catalog = default_catalog();
  InferContext ctx;
  Setup(const char* model, const char* gpu, const char* engine)
      : ctx(make_infer_context(catalog, catalog.model(model), catalog.gpu(gpu), catalog.engine(engine),
                               default_system_for(catalog, catalog.gpu(gpu)))) {}
};

void BM_InferMaxThroughput70BTp8(benchmark::State& state) {
  static const Setup s("llama3.1-70b", "h100-sxm", "tensorrt-llm");
  InferPlan p;
  p.tp = 8;
  p.weights = Precision::fp8;
  p.kv = Precision::fp8;
  p.mode = InferMode::max_throughput;
  int i = 0;
  for (auto _ : state) {
    p.input_len = 128 << (i & 3);
    p.output_len = 2048 >> (i & 1);
    ++i;
    benchmark::DoNotOptimize(evaluate_inference(s.ctx, p));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_InferMaxThroughput70BTp8);

void BM_InferConcurrencyMixtral(benchmark::State& state) {
  static const Setup s("mixtral-8x7b", "h100-sxm", "vllm");
  InferPlan p;
  p.tp = 2;
  p.weights = Precision::fp8;
  p.kv = Precision::fp8;
  p.mode = InferMode::concurrency;
  p.input_len = 1024;
  p.output_len = 256;
  int i = 0;
  for (auto _ : state) {
    p.load = 4 << (i & 3);
    ++i;
    benchmark::DoNotOptimize(evaluate_inference(s.ctx, p));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_InferConcurrencyMixtral);

// The timed loop of the infer-search benchmarks: items are plans evaluated.
void run_infer_search(benchmark::State& state, const Setup& s, const InferSearchSpec& spec) {
  long long evaluated = 0;
  for (auto _ : state) {
    const InferSearchResult r = infer_search(s.ctx, spec);
    evaluated += r.evaluated;
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(evaluated);
}

// Llama 3.1 70B on up to 8 H100 with vLLM, 1,024 in / 256 out, TPOT <= 50 ms: the question both
// infer-search benchmarks ask.
InferSearchSpec search_70b_on_8_spec() {
  InferSearchSpec spec;
  spec.gpus_max = 8;
  spec.input_len = 1024;
  spec.output_len = 256;
  spec.tpot_s = 0.05;
  return spec;
}

void BM_InferSearch70BOn8H100(benchmark::State& state) {
  static const Setup s("llama3.1-70b", "h100-sxm", "vllm");
  run_infer_search(state, s, search_70b_on_8_spec());
}
BENCHMARK(BM_InferSearch70BOn8H100)->Unit(benchmark::kMillisecond);

// The same search with its targets at the simulated p99 (--slo-percentile 99, infer/search_sim.h):
// the closed-form pass, then the scheduler simulation of the best-ranked candidates until one
// meets the targets. Counters: plans simulated, and ruled out by the TTFT lower bound unsimulated. Issue 30's bound: within 100 ms.
void BM_InferSearch70BOn8H100P99(benchmark::State& state) {
  static const Setup s("llama3.1-70b", "h100-sxm", "vllm");
  InferSearchSpec spec = search_70b_on_8_spec();
  spec.ttft_s = 1.0;
  spec.slo_percentile = 99;
  long long simulated = 0, bounded = 0;
  for (auto _ : state) {
    const InferSearchResult r = infer_search(s.ctx, spec);
    simulated = r.simulated;
    bounded = r.bounded;
    benchmark::DoNotOptimize(r);
  }
  state.counters["simulated"] = static_cast<double>(simulated);
  state.counters["bounded"] = static_cast<double>(bounded);
}
BENCHMARK(BM_InferSearch70BOn8H100P99)->Unit(benchmark::kMillisecond);

// The same search for a MoE model on TensorRT-LLM (EP dividing TP, AllToAll beside the
// AllReduce, whole-prompt lockstep): the other path through the per-search collective memo
// (infer/tp_collective_memo.h).
void BM_InferSearchMixtralOn8H100(benchmark::State& state) {
  static const Setup s("mixtral-8x7b", "h100-sxm", "tensorrt-llm");
  InferSearchSpec spec;
  spec.gpus_max = 8;
  spec.input_len = 1024;
  spec.output_len = 256;
  run_infer_search(state, s, spec);
}
BENCHMARK(BM_InferSearchMixtralOn8H100)->Unit(benchmark::kMillisecond);

// infer-search --disagg-prefill-gpus h200-sxm,b200,h100-sxm for Llama 3.1 70B decoding on H200
// (infer/disagg_search.h): every pair of pool TPs to 8 and decode batch per prefill GPU, fp8.
void BM_DisaggSearch70BThreePrefillGpus(benchmark::State& state) {
  static const Setup decode("llama3.1-70b", "h200-sxm", "vllm");
  static const Setup b200("llama3.1-70b", "b200", "vllm");
  static const Setup h100("llama3.1-70b", "h100-sxm", "vllm");
  const std::vector<const InferContext*> prefill = {&decode.ctx, &b200.ctx, &h100.ctx};
  InferPlan base;
  base.weights = Precision::fp8;
  base.kv = Precision::fp8;
  base.input_len = 4096;
  base.output_len = 512;
  DisaggSearchSpec spec;
  spec.tpot_s = 0.050;
  spec.objective = InferObjective::cost;
  long long pairs = 0;
  for (auto _ : state) {
    const DisaggSearchResult r = search_disagg(prefill, decode.ctx, base, spec);
    pairs += r.evaluated;
    benchmark::DoNotOptimize(r.best.score);
  }
  state.SetItemsProcessed(pairs);
}
BENCHMARK(BM_DisaggSearch70BThreePrefillGpus)->Unit(benchmark::kMillisecond);

void BM_RecommendServe70B(benchmark::State& state) {
  const Catalog& cat = default_catalog();
  ServeRecommendRequest o;
  o.input_len = 1024;
  o.output_len = 256;
  o.tpot_ms = 50;
  long long evaluated = 0;
  for (auto _ : state) {
    const ServeRecommendAnswer r = answer_serve_recommend(cat, cat.model("llama3.1-70b"), o);
    evaluated += r.evaluated;
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(evaluated);
}
BENCHMARK(BM_RecommendServe70B)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpuplan
