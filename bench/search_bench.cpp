// Speed of the plan search: Llama 3.1 405B on 16,384 H100s (global batch 2,048 × 8,192
// tokens), the target (under 2 s on a 2-core machine), with and without pruning.
// `plans/s/core` counts plans run through evaluate() per second of one thread.
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "catalog/system_choice.h"
#include "search/search.h"

namespace gpuplan {
namespace {

const TrainContext& ctx405b() {
  static const TrainContext ctx = [] {
    const Catalog& cat = default_catalog();
    const Gpu& gpu = cat.gpu("h100-sxm");
    return make_train_context(cat, cat.model("llama3.1-405b"), gpu, default_system_for(cat, gpu), nullptr);
  }();
  return ctx;
}

void run_search(benchmark::State& state, bool prune, int threads) {
  SearchSpace space;
  space.gpus = 16384;
  space.global_batch = 2048;
  space.seq_len = 8192;
  SearchOptions opt;
  opt.top_k = 5;
  opt.prune = prune;
  opt.threads = threads;
  long long evaluated = 0;
  double elapsed = 0;
  for (auto _ : state) {
    const SearchResult r = search_plans(ctx405b(), space, opt);
    benchmark::DoNotOptimize(r.top.data());
    evaluated += r.evaluated;
    elapsed += r.elapsed_s;
    state.counters["space"] = static_cast<double>(r.space);
    state.counters["evaluated"] = static_cast<double>(r.evaluated);
  }
  state.counters["plans/s/core"] = static_cast<double>(evaluated) / (elapsed * threads);
}

void BM_Search405B16kPruned2Threads(benchmark::State& s) { run_search(s, true, 2); }
void BM_Search405B16kPruned1Thread(benchmark::State& s) { run_search(s, true, 1); }
void BM_Search405B16kBruteForce2Threads(benchmark::State& s) { run_search(s, false, 2); }
void BM_Search405B16kBruteForce1Thread(benchmark::State& s) { run_search(s, false, 1); }
BENCHMARK(BM_Search405B16kPruned2Threads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Search405B16kPruned1Thread)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Search405B16kBruteForce2Threads)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_Search405B16kBruteForce1Thread)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
}  // namespace gpuplan
