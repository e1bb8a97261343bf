// Eager kernel counts per op: docs/model/training.md, "Host time of eager layers".
#include "cost/eager_kernels.h"

#include <string_view>

namespace gpuplan {

bool eager_kernels_apply(const ModelSpec& m) {
  return m.norm == NormKind::rmsnorm && m.mlp == MlpKind::swiglu && m.position == PositionKind::rope && !m.mla;
}

bool eager_kernel_count(const EagerKernels& t, const Op& op, KernelCount& out) {
  const std::string_view n = op.name;
  const KernelCount* k = nullptr;
  if (n == "attn_norm" || n == "mlp_norm") {
    k = &t.rmsnorm;
  } else if (n == "qkv_proj") {
    k = &t.qkv_proj;
  } else if (n == "rope") {
    k = &t.rope;
  } else if (n == "attention") {
    k = &t.attention;
  } else if (n == "out_proj") {
    k = &t.out_proj;
  } else if (n == "attn_residual" || n == "mlp_residual") {
    k = &t.residual;
  } else if (n == "mlp_up") {
    k = &t.mlp_up;
  } else if (n == "mlp_act") {
    k = &t.mlp_act;
  } else if (n == "mlp_down") {
    k = &t.mlp_down;
  }
  if (k == nullptr) return false;
  out = *k;
  return true;
}

bool eager_host_time_s(const EagerKernels& t, const Op& op, double& host_fwd_s, double& host_bwd_s) {
  KernelCount k;
  if (t.host_s_per_kernel <= 0 || !eager_kernel_count(t, op, k)) return false;
  host_fwd_s = k.fwd * t.host_s_per_kernel;
  host_bwd_s = k.bwd * t.host_s_per_kernel;
  return true;
}

}  // namespace gpuplan
