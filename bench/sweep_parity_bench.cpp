// The C++ side of the Python sweep figure (docs/performance.md, "Python module"): 10,000
// training plans through answer_train, the library call gpuplan.train_many makes, on 1 and 2
// threads. python/bench/bench_sweep.py runs the same 10,000 requests from Python; the two
// grids must stay the same (sweep_grid below, grid() there).
#include <atomic>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "plan/train_request.h"

namespace gpuplan {
namespace {

// Llama 3.1 70B on H100 SXM, seq 4096, 8 micro-batches per step: tp {1,2,4,8} × pp
// {1,2,4,5,8} × dp {1,2,4,8,16} × micro-batch {1,2,4,8,16} × ZeRO {0,1,2,3} × 5 recompute/SP
// variants = 10,000 requests.
std::vector<TrainRequest> sweep_grid() {
  std::vector<TrainRequest> out;
  const char* recompute[] = {"none", "selective", "full", "selective", "full"};
  for (int tp : {1, 2, 4, 8})
    for (int pp : {1, 2, 4, 5, 8})
      for (int dp : {1, 2, 4, 8, 16})
        for (int mb : {1, 2, 4, 8, 16})
          for (int zero : {0, 1, 2, 3})
            for (int v = 0; v < 5; ++v) {
              TrainRequest r;
              r.model = "llama3.1-70b";
              r.gpu = "h100-sxm";
              r.tp = tp;
              r.pp = pp;
              r.dp = dp;
              r.micro_batch = mb;
              r.global_batch = dp * mb * 8;
              r.zero = zero;
              r.recompute = recompute[v];
              r.sp = v >= 3 && tp > 1;
              r.seq_len = 4096;
              out.push_back(r);
            }
  return out;
}

void BM_TrainSweep10k(benchmark::State& state) {
  const Catalog& catalog = default_catalog();
  const std::vector<TrainRequest> grid = sweep_grid();
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    std::atomic<std::size_t> next{0};
    auto work = [&] {
      for (std::size_t i = next++; i < grid.size(); i = next++) benchmark::DoNotOptimize(answer_train(catalog, grid[i]));
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<long long>(grid.size()));
}
BENCHMARK(BM_TrainSweep10k)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace gpuplan
