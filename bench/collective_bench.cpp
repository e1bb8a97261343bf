// How many collective estimates per second the plan search can afford (docs/performance.md).
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "cost/collective.h"

namespace {

using namespace gpuplan;

CollectiveTopology topology(const char* system, const char* fabric) {
  const Catalog& c = default_catalog();
  return make_collective_topology(c, c.system(system), fabric ? &c.fabric(fabric) : nullptr,
                                  default_collective_params(c));
}

CollectiveRequest request(CollectiveOp op, int per_domain, int domains) {
  CollectiveRequest r;
  r.op = op;
  r.gpus_per_domain = per_domain;
  r.domains = domains;
  return r;
}

// One estimate per iteration, the message size varying so nothing is hoisted out of the loop.
void run(benchmark::State& state, const CollectiveTopology& t, CollectiveRequest r) {
  double bytes = 1024;
  for (auto _ : state) {
    r.bytes = bytes;
    benchmark::DoNotOptimize(estimate_collective(r, t));
    bytes = bytes < 1e10 ? bytes * 1.5 : 1024;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_AllReduce8xH100(benchmark::State& state) {
  run(state, topology("dgx-h100", nullptr), request(CollectiveOp::all_reduce, 8, 1));
}
BENCHMARK(BM_AllReduce8xH100);

// The same requests through the time-only call the training evaluator and the serving step use
// (estimate_collective_time: the choice without the chosen line's per-level detail).
void BM_AllReduce8xH100TimeOnly(benchmark::State& state) {
  const auto t = topology("dgx-h100", nullptr);
  auto r = request(CollectiveOp::all_reduce, 8, 1);
  double bytes = 1024;
  for (auto _ : state) {
    r.bytes = bytes;
    benchmark::DoNotOptimize(estimate_collective_time(r, t));
    bytes = bytes < 1e10 ? bytes * 1.5 : 1024;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AllReduce8xH100TimeOnly);

void BM_AllGather8xH100(benchmark::State& state) {
  run(state, topology("dgx-h100", nullptr), request(CollectiveOp::all_gather, 8, 1));
}
BENCHMARK(BM_AllGather8xH100);

void BM_AllReduce1024SuperPod(benchmark::State& state) {
  run(state, topology("dgx-h100", "dgx-superpod-h100"), request(CollectiveOp::all_reduce, 8, 128));
}
BENCHMARK(BM_AllReduce1024SuperPod);

void BM_AllToAll64SuperPod(benchmark::State& state) {
  run(state, topology("dgx-h100", "dgx-superpod-h100"), request(CollectiveOp::all_to_all, 8, 8));
}
BENCHMARK(BM_AllToAll64SuperPod);

// 20 GB200 NVL72 racks (1,440 GPUs): NVLS in each rack, NVLS_TREE across, network-bound.
void BM_AllReduce1440Nvl72(benchmark::State& state) {
  run(state, topology("gb200-nvl72", nullptr), request(CollectiveOp::all_reduce, 72, 20));
}
BENCHMARK(BM_AllReduce1440Nvl72);

// One (algorithm, protocol) line, as a caller that already knows NCCL's choice would pay.
void BM_OneLine8xH100(benchmark::State& state) {
  const auto t = topology("dgx-h100", nullptr);
  auto r = request(CollectiveOp::all_reduce, 8, 1);
  double bytes = 1024;
  for (auto _ : state) {
    r.bytes = bytes;
    benchmark::DoNotOptimize(estimate_collective_with(r, t, CollectiveAlgorithm::ring, Protocol::simple));
    bytes = bytes < 1e10 ? bytes * 1.5 : 1024;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OneLine8xH100);

// The once-per-system set-up.
void BM_MakeTopologySuperPod(benchmark::State& state) {
  const Catalog& c = default_catalog();
  const System& s = c.system("dgx-h100");
  const Fabric& f = c.fabric("dgx-superpod-h100");
  const CollectiveParams& p = default_collective_params(c);
  for (auto _ : state) benchmark::DoNotOptimize(make_collective_topology(c, s, &f, p));
}
BENCHMARK(BM_MakeTopologySuperPod);

}  // namespace
