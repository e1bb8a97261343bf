// How long loading the embedded catalog and looking up entries takes.
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"

namespace {

void BM_LoadEmbeddedCatalog(benchmark::State& state) {
  for (auto _ : state) {
    gpuplan::Catalog c = gpuplan::load_catalog();
    benchmark::DoNotOptimize(c.gpus.data());
  }
}
BENCHMARK(BM_LoadEmbeddedCatalog)->Unit(benchmark::kMillisecond);

void BM_GpuLookupByAlias(benchmark::State& state) {
  const gpuplan::Catalog& c = gpuplan::default_catalog();
  for (auto _ : state) benchmark::DoNotOptimize(c.find_gpu("H100 SXM"));
}
BENCHMARK(BM_GpuLookupByAlias);

}  // namespace
