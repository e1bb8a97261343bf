#include "plan/op_roofline.h"

#include "workload/ops.h"

namespace gpuplan {

namespace {

const char* op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::gemm: return "gemm";
    case OpKind::attention: return "attention";
    case OpKind::memory: return "memory";
  }
  return "memory";
}

}  // namespace

OpRoofline op_roofline(const TrainContext& ctx, const Plan& plan) {
  const OpShape shape = train_op_shape(ctx, plan);
  OpRoofline r;
  r.gpu = ctx.gpu->id;
  r.precision = std::string(precision_name(shape.gemm));
  r.peak_flops_per_s = ctx.gpu->dense(shape.gemm);
  r.achievable_flops_per_s = ctx.device.gemm_flops_per_s[index_of(shape.gemm)];
  r.peak_memory_bw_bytes_per_s = ctx.gpu->memory_bw_bytes_per_s;
  r.achievable_memory_bw_bytes_per_s = ctx.device.memory_bw_bytes_per_s;
  LayerOps ops;
  build_layer_ops(*ctx.model, r.layer, shape, ops);
  for (const Op& op : ops) {
    const OpTime t = op_time(ctx.device, op, shape.gemm, shape.act);
    const double kernels = op.kind == OpKind::gemm ? (op.batched ? 1 : op.count)
                           : op.kind == OpKind::memory && op.kernels_fwd > 0 ? op.kernels_fwd
                                                                              : 1;
    r.ops.push_back({op.name, op_kind_name(op.kind), op.fwd_flops, op.fwd_bytes, t.fwd_s, kernels});
  }
  return r;
}

}  // namespace gpuplan
