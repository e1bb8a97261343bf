#include "infer/moe_routing.h"

#include <algorithm>

namespace gpuplan {

double moe_routing_kernel_bytes(MoeRoutingKernel k, const MoeRoutingLayer& l) {
  const double t = l.routed_tokens;
  switch (k) {
    // The router's logits in fp32 (engines' top-k kernels take float gating output: vLLM
    // topk_softmax, TensorRT-LLM's routing kernels), k expert ids (int32) and weights (fp32) out.
    case MoeRoutingKernel::topk_softmax:
      return t * (l.experts * 4 + l.top_k * 8);
    // The t·k expert ids read, the permutation and its inverse written (int32 each).
    case MoeRoutingKernel::sort:
      return t * l.top_k * 4 * 3;
    case MoeRoutingKernel::gemm_setup:
      return 0;
    // A token read once and written to each of its k expert rows; the combine the reverse.
    case MoeRoutingKernel::gather:
    case MoeRoutingKernel::combine:
      return t * l.hidden * l.bytes_per_elem * (1 + l.top_k);
    case MoeRoutingKernel::activation:
      return l.activation_bytes;
  }
  return 0;
}

bool moe_routing_kernel_counted(MoeRoutingKernel k) {
  return k == MoeRoutingKernel::gather || k == MoeRoutingKernel::activation || k == MoeRoutingKernel::combine;
}

double moe_routing_kernels_s(const std::vector<MoeRoutingKernel>& kernels, double floor_s, double bw_bytes_per_s,
                             const MoeRoutingLayer& layer) {
  if (layer.routed_tokens <= 0 || bw_bytes_per_s <= 0) return 0;
  double s = 0;
  for (const MoeRoutingKernel k : kernels) {
    const double mem_s = moe_routing_kernel_bytes(k, layer) / bw_bytes_per_s;
    s += std::max(floor_s, mem_s) - (moe_routing_kernel_counted(k) ? mem_s : 0);
  }
  return s;
}

}  // namespace gpuplan
