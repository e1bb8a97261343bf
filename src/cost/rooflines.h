// The seed documents' compute-vs-communication rooflines for scaling a training job over a
// fabric (shared/seeds/004_97caa601c296245a.txt, "Key points for LLM scaling on GPUs"): per
// level of the hierarchy, the smallest per-GPU batch (tokens) that keeps data parallelism,
// FSDP and MoE expert parallelism compute-bound, and the largest TP degree before TP
// communication dominates. Formulas: docs/model/training.md.
#pragma once

#include <string>
#include <vector>

#include "catalog/system_derived.h"

namespace gpuplan {

struct RooflineInputs {
  double flops_per_s = 0;  // C: the GPU's dense peak at the training precision
  double ffn = 16384;      // F: MLP width for the TP bound
  double experts = 256;    // E: routed experts (the seed's DeepSeek example)
  double top_k = 8;        // k: experts per token
  int ep = 64;             // Y: expert-parallel degree for the MoE bound
};

struct LevelRoofline {
  std::string name;
  int gpus = 0;
  double bw_per_gpu_uni_bytes_per_s = 0;  // W_i / GPUs
  bool in_network_reduction = false;
  // AllReduce bandwidth up to this level: 1 / max_j≤i S_j / (max(Y, S_j−1) · W_j), Y = 1.
  double allreduce_bw_bytes_per_s = 0;
  double dp_tokens_per_gpu = 0;    // C / (2 W_AR) with in-network reduction, C / W_AR without
  double fsdp_tokens_per_gpu = 0;  // twice the DP bound (AllGather + ReduceScatter)
  double moe_allreduce_bw_bytes_per_s = 0;  // with Y-way expert parallelism inside
  double moe_tokens_per_gpu = 0;            // (E / k) · C / (2 W_AR,Y)
  double tp_max = 0;  // scale-up level only: F / (C (N−1) / (N W)); 0 elsewhere
};

// One row per level of `levels` (from bandwidth_levels): level 0 is the scale-up domain, whose
// in-network reduction is `domain_reduction` (NVLS); the fabric levels have `fabric_reduction`
// (SHARP).
std::vector<LevelRoofline> scaling_rooflines(const std::vector<LevelBandwidth>& levels, bool domain_reduction,
                                             bool fabric_reduction, const RooflineInputs& in);

// The seed's TP divisor: C (N − 1) / (N W); Y < F / divisor (H100, N = 8, W = 450 GB/s,
// C = 989 TFLOP/s: 1,923).
double tp_bound_divisor(double flops_per_s, int domain_gpus, double bw_per_gpu_uni_bytes_per_s);

}  // namespace gpuplan
