// Seed 004: data parallelism is compute-bound when T_math = 2·2·2·B·D·F / (X·C) exceeds
// T_comms = 2·2·D·F / W_AR (in-network reduction removes AllReduce's factor 2), i.e.
// B/X > C / (2 W_AR); FSDP moves twice the bytes; MoE multiplies the weights by E/k per
// active FLOP; model parallelism of degree Y inside a level divides that level's traffic:
// T_comms = max_i B·S_i / (max(Y, S_i−1) · W_i).
#include "cost/rooflines.h"

#include <algorithm>

namespace gpuplan {
namespace {

// 1 / max_{j <= i} S_j / (max(y, S_{j-1}) · W_j): the AllReduce bandwidth through level i.
double allreduce_bw(const std::vector<LevelBandwidth>& levels, std::size_t i, double y) {
  double worst = 0;
  double below = 1;
  for (std::size_t j = 0; j <= i; ++j) {
    const LevelBandwidth& l = levels[j];
    if (l.bw_uni_bytes_per_s > 0) worst = std::max(worst, l.gpus / (std::max(y, below) * l.bw_uni_bytes_per_s));
    below = l.gpus;
  }
  return worst > 0 ? 1 / worst : 0;
}

}  // namespace

double tp_bound_divisor(double flops_per_s, int domain_gpus, double bw_per_gpu_uni_bytes_per_s) {
  const double n = std::max(2, domain_gpus);
  return flops_per_s * (n - 1) / (n * bw_per_gpu_uni_bytes_per_s);
}

std::vector<LevelRoofline> scaling_rooflines(const std::vector<LevelBandwidth>& levels, bool domain_reduction,
                                             bool fabric_reduction, const RooflineInputs& in) {
  std::vector<LevelRoofline> out;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const LevelBandwidth& l = levels[i];
    LevelRoofline r;
    r.name = l.name;
    r.gpus = l.gpus;
    r.bw_per_gpu_uni_bytes_per_s = l.bw_per_gpu_uni_bytes_per_s;
    r.in_network_reduction = i == 0 ? domain_reduction : fabric_reduction;
    // Without in-network reduction a ring AllReduce sends every byte twice.
    const double factor = r.in_network_reduction ? 2 : 1;
    r.allreduce_bw_bytes_per_s = allreduce_bw(levels, i, 1);
    if (r.allreduce_bw_bytes_per_s > 0) {
      r.dp_tokens_per_gpu = in.flops_per_s / (factor * r.allreduce_bw_bytes_per_s);
      r.fsdp_tokens_per_gpu = 2 * r.dp_tokens_per_gpu;
    }
    r.moe_allreduce_bw_bytes_per_s = allreduce_bw(levels, i, std::max(1, in.ep));
    if (r.moe_allreduce_bw_bytes_per_s > 0 && in.top_k > 0) {
      r.moe_tokens_per_gpu = in.experts / in.top_k * in.flops_per_s / (factor * r.moe_allreduce_bw_bytes_per_s);
    }
    if (i == 0 && l.bw_per_gpu_uni_bytes_per_s > 0) {
      r.tp_max = in.ffn / tp_bound_divisor(in.flops_per_s, l.gpus, l.bw_per_gpu_uni_bytes_per_s);
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace gpuplan
