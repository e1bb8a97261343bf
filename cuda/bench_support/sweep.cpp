// The default sweep of gpuplan-bench: sizes, precisions, the GEMM and layer shapes of zoo
// models, derived with the same op builder the training evaluator costs (workload/ops.h), and
// the training step.
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "bench_support/measure.h"
#include "workload/ops.h"

namespace gpuplan {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::vector<double> sizes_by_4(double from_bytes, double to_bytes) {
  std::vector<double> out;
  for (double bytes = from_bytes; bytes <= to_bytes; bytes *= 4) out.push_back(bytes);
  return out;
}

bool tensor_core_friendly(double v) { return v >= 16 && v == std::floor(v) && std::fmod(v, 16) == 0; }

}  // namespace

std::vector<GemmShape> model_gemm_shapes(const ModelSpec& model, int tokens, Precision precision) {
  OpShape shape;
  shape.micro_batch = 1;
  shape.seq_len = tokens;
  std::vector<GemmShape> out;
  std::set<std::tuple<int, int, int>> seen;
  std::set<int> kinds;
  LayerOps ops;
  for (std::int64_t layer_idx = 0; layer_idx < model.layers; ++layer_idx) {
    if (!kinds.insert(layer_kind(model, layer_idx)).second) continue;  // one layer of each kind
    build_layer_ops(model, layer_idx, shape, ops);
    for (const Op& op : ops) {
      // Routers (n = experts, a few columns) and odd per-expert row counts are not what the
      // curves are for; fp8 tensor cores also need every dimension a multiple of 16.
      if (op.kind != OpKind::gemm || std::string(op.name) == "router") continue;
      if (!tensor_core_friendly(op.m) || !tensor_core_friendly(op.n) || !tensor_core_friendly(op.k)) continue;
      const auto key = std::make_tuple(static_cast<int>(op.m), static_cast<int>(op.n), static_cast<int>(op.k));
      if (!seen.insert(key).second) continue;
      out.push_back({"cublaslt", precision, std::get<0>(key), std::get<1>(key), std::get<2>(key)});
    }
  }
  return out;
}

SweepOptions default_sweep(bool quick, const Catalog& catalog) {
  SweepOptions s;
  s.memory_bytes = sizes_by_4(kMiB, (quick ? 256 : 4096) * kMiB);
  // Up to half of L2: H100's L2 is two partitions, and a buffer near the full size misses.
  s.l2_fractions = quick ? std::vector<double>{0.25} : std::vector<double>{0.125, 0.25, 0.5};
  s.host_bytes = quick ? std::vector<double>{kMiB, 64 * kMiB} : sizes_by_4(kMiB, 1024 * kMiB);
  s.collective_bytes = quick ? std::vector<double>{kMiB, 64 * kMiB} : sizes_by_4(64 * 1024, 1024 * kMiB);

  s.gemms.push_back({"wmma", Precision::fp16, 4096, 4096, 4096});
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp16, Precision::fp8}) {
    const int step = quick ? 4 : 2;
    for (int size = 256; size <= (quick ? 4096 : 16384); size *= step) s.gemms.push_back({"cublaslt", p, size, size, size});
  }
  // The layers of a few zoo models at 8,192 tokens (quick: one model at 2,048), in the two
  // precisions training runs its GEMMs in.
  std::vector<std::string> models(std::begin(kSweepModels), std::end(kSweepModels));
  if (quick) models.resize(1);
  for (Precision p : quick ? std::vector<Precision>{Precision::bf16} : std::vector<Precision>{Precision::bf16, Precision::fp8}) {
    for (const std::string& id : models) {
      for (const GemmShape& g : model_gemm_shapes(catalog.model(id), quick ? 2048 : kSweepModelTokens, p)) {
        const bool seen = std::any_of(s.gemms.begin(), s.gemms.end(), [&](const GemmShape& o) {
          return o.kernel == g.kernel && o.precision == g.precision && o.m == g.m && o.n == g.n && o.k == g.k;
        });
        if (!seen) s.gemms.push_back(g);  // Mixtral's attention is Llama-3-8B's
      }
    }
  }

  // A tiny layer checked against the CPU first (GQA with 2 query heads per KV head, two
  // sequences), then the layers timed: Llama-3-8B-shaped at 2,048 tokens, and a 1B-class
  // shape (Llama-3.2-1B's: hidden 2048, 32 heads, 8 KV heads, FFN 8192).
  s.layer_check = {"tiny-check", 128, 4, 2, 256, 64, 2};
  const LayerShape one_b{"1b-class", 2048, 32, 8, 8192, quick ? 512 : 2048, 1};
  if (quick) {
    s.layers = {one_b};
  } else {
    s.layers = {layer_shape_of(catalog.model("llama3.1-8b"), 2048, 1), one_b};
  }
  // A tiny step checked against the CPU first (2 layers of the tiny layer, vocabulary 512),
  // then a 1B-class training step: Llama-3.2-1B's 16 layers, hidden 2048, 32 heads, 8 KV
  // heads, FFN 8192, vocabulary 128256, untied (quick: 2 of its layers at seq 512, vocabulary
  // 32000).
  s.step_check = {{"tiny-step-check", 128, 4, 2, 256, 64, 2}, 2, 512};
  if (quick) {
    s.steps = {{{"1b-class-2-layers", 2048, 32, 8, 8192, 512, 1}, 2, 32000}};
  } else {
    s.steps = {{{"1b-class", 2048, 32, 8, 8192, 2048, 1}, 16, 128256}};
  }
  s.runs = quick ? 5 : 20;
  return s;
}

}  // namespace gpuplan
