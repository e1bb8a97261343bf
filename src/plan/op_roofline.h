// The ops of a training plan placed on the roofline of its GPU: each op of one layer with its
// arithmetic intensity (FLOPs per HBM byte) and the rate the cost model gives it, beside the
// GPU's datasheet and achievable ceilings. What the HTML report's roofline chart draws; the
// figures are evaluate()'s own (train_op_shape, op_time), nothing is re-derived.
#pragma once

#include <string>
#include <vector>

#include "plan/evaluate.h"

namespace gpuplan {

struct OpRooflinePoint {
  std::string name;   // "qkv_proj", "attention", ...
  std::string kind;   // gemm, attention, memory
  double flops = 0;   // forward FLOPs of one micro-batch on one GPU
  double bytes = 0;   // forward HBM bytes
  double time_s = 0;  // forward GPU time (roofline with shape efficiency)
  // Forward kernels the host issues for it: one per GEMM (each local expert's), one for
  // attention, one for a fused memory-bound kernel, one per PyTorch op of an eager chain
  // (Op::kernels_fwd).
  double kernels = 1;
  double intensity_flops_per_byte() const { return bytes > 0 ? flops / bytes : 0; }
  double achieved_flops_per_s() const { return time_s > 0 ? flops / time_s : 0; }
};

struct OpRoofline {
  std::string gpu;
  std::string precision;               // the plan's GEMM precision
  double peak_flops_per_s = 0;         // datasheet dense peak at that precision
  double achievable_flops_per_s = 0;   // large-GEMM rate the efficiency entry reaches
  double peak_memory_bw_bytes_per_s = 0;        // datasheet HBM bandwidth
  double achievable_memory_bw_bytes_per_s = 0;  // the efficiency entry's
  int layer = 0;                       // the layer whose ops these are (the first layer)
  std::vector<OpRooflinePoint> ops;
};

// The first layer's ops under `plan` (forward pass, one micro-batch): a `train` answer's plan
// or a search's best.
OpRoofline op_roofline(const TrainContext& ctx, const Plan& plan);

}  // namespace gpuplan
