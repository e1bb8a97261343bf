// The kernels gpuplan-bench's transformer layer (and training step) launches (cuda/layer_bench.cpp, layer_pass),
// one roofline item each, so a measured layer can be set beside a prediction of the very same
// work: the unfused attention's full seq × seq scores, the fp32 weight gradients and the
// head-major copies included. This is the kernel-level model of `gpuplan validate
// calibration`; the training evaluator (plan/evaluate.h) costs a layer as a framework runs it
// (FlashAttention, fitted framework overheads) and is shown beside it.
#pragma once

#include <vector>

#include "calibration/layer_shape.h"
#include "calibration/step_shape.h"
#include "cost/roofline.h"

namespace gpuplan {

// One kernel: a GEMM (count of them, batched) or a memory-bound pass over `bytes`.
struct BenchKernel {
  const char* name = "";
  bool gemm = false;
  bool backward = false;
  double m = 0, n = 0, k = 0, count = 1;  // GEMMs: output M×N, reduction K
  double bytes = 0;                       // HBM traffic (inputs read once, outputs written once)
};

// Forward then backward, in launch order. Elements are bf16 (2 bytes) except the fp32 scores,
// row statistics and weight gradients, as in the benchmark.
std::vector<BenchKernel> bench_layer_kernels(const LayerShape& shape);

// The benchmark's whole training step (cuda/train_step.cpp): embedding gather, the layers,
// final RMSNorm, LM head with fp32 logits, cross-entropy, all the way back (fp32 embedding
// gradient by scatter-add), and the mixed-precision AdamW pass over every parameter (fp32
// master, gradient and two moments read, the three written, the bf16 copy refreshed: 30
// bytes a parameter). Backward and optimizer both count as `backward`.
std::vector<BenchKernel> bench_step_kernels(const StepShape& shape);

struct BenchPrediction {
  double fwd_s = 0;
  double bwd_s = 0;
  double gemm_s = 0;    // of which GEMMs (both passes)
  double memory_s = 0;  // and memory-bound kernels
};

// Σ roofline time of the kernels on `dev` (GEMMs in bf16 with the device's shape model and any
// measured shape curve; memory kernels at its bandwidth). No launch gaps: the benchmark's host
// issues kernels far ahead of the GPU and CUDA events time the GPU.
BenchPrediction predict_bench_kernels(const RooflineDevice& dev, const std::vector<BenchKernel>& kernels);

}  // namespace gpuplan
