// What the built-in catalog costs a command: parsing every embedded file (what each start paid
// before the tables became lazy), the first lookup of one GPU in a fresh lazy table (what
// `gpuplan gpu NAME` pays now), a walk over every GPU, and a lookup once parsed.
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "catalog/embedded_data.h"

namespace {

std::vector<const gpuplan::EmbeddedFile*> embedded_files_of(std::string_view kind) {
  std::vector<const gpuplan::EmbeddedFile*> out;
  for (const gpuplan::EmbeddedFile& f : gpuplan::embedded_data_files()) {
    if (f.kind == kind) out.push_back(&f);
  }
  return out;
}

void BM_ParseEveryEmbeddedFile(benchmark::State& state) {
  for (auto _ : state) {
    gpuplan::Catalog c;
    for (const gpuplan::EmbeddedFile& f : gpuplan::embedded_data_files()) {
      gpuplan::load_catalog_text(c, f.content, std::string("<embedded>/") + f.path, false);
    }
    benchmark::DoNotOptimize(c.gpus.data());
  }
}
BENCHMARK(BM_ParseEveryEmbeddedFile)->Unit(benchmark::kMillisecond);

void BM_FirstGpuLookupLazy(benchmark::State& state) {
  const std::vector<const gpuplan::EmbeddedFile*> files = embedded_files_of("gpu");
  for (auto _ : state) {
    gpuplan::CatalogTable<gpuplan::Gpu> gpus;
    gpus.make_lazy(files);
    benchmark::DoNotOptimize(gpus.find_normalized("h100-sxm"));
  }
}
BENCHMARK(BM_FirstGpuLookupLazy)->Unit(benchmark::kMicrosecond);

void BM_EveryGpuLazy(benchmark::State& state) {
  const std::vector<const gpuplan::EmbeddedFile*> files = embedded_files_of("gpu");
  for (auto _ : state) {
    gpuplan::CatalogTable<gpuplan::Gpu> gpus;
    gpus.make_lazy(files);
    benchmark::DoNotOptimize(gpus.size());
  }
}
BENCHMARK(BM_EveryGpuLazy)->Unit(benchmark::kMillisecond);

void BM_GpuLookupByAlias(benchmark::State& state) {
  const gpuplan::Catalog& c = gpuplan::default_catalog();
  for (auto _ : state) benchmark::DoNotOptimize(c.find_gpu("H100 SXM"));
}
BENCHMARK(BM_GpuLookupByAlias);

}  // namespace
