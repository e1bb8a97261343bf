// Per-step communication and the optimizer: data-parallel gradient reduction and ZeRO/FSDP
// gathers, pipeline sends, the optimizer step on the GPU or offloaded to the host.
#include <algorithm>

#include "plan/comm_config.h"
#include "plan/evaluate_internal.h"
#include "workload/size_math.h"

namespace gpuplan {

CommCost fsdp_micro_batch_cost(double units, double gather_s, double reduce_scatter_s, double fwd_unit_s,
                               double bwd_unit_s, double sm_share) {
  CommCost c;
  c.total_s = units * (2 * gather_s + reduce_scatter_s);
  // Forward: unit i's gather runs during unit i − 1's forward; the first has nothing ahead.
  // What the compute hides still costs it the SMs NCCL holds: max(C − W, s·C), the form of
  // the distributed optimizer's overlapped collectives (data_parallel_comm).
  const double fwd = gather_s + (units - 1) * std::max(gather_s - fwd_unit_s, sm_share * gather_s);
  // Backward: while a unit runs its backward, the next unit's gather and the previous unit's
  // reduce-scatter share the communication stream; the first gather and the last
  // reduce-scatter have no compute beside them.
  const double beside = gather_s + reduce_scatter_s;
  const double bwd = gather_s + (units - 1) * std::max(beside - bwd_unit_s, sm_share * beside) + reduce_scatter_s;
  c.exposed_s = std::min(c.total_s, fwd + bwd);
  return c;
}

OffloadCost optimizer_offload_cost(double params, double grad_bytes, double weight_bytes, double host_bytes_per_param,
                                   double link_bw, double host_bw, double backward_s) {
  OffloadCost c;
  // Each gradient bucket is copied to the host as soon as the backward produces (and, with
  // ZeRO, reduce-scatters) it, under the rest of the backward (ZeRO-Offload sec. 4.1).
  c.grads.total_s = params * grad_bytes / link_bw;
  c.grads.exposed_s = std::max(0.0, c.grads.total_s - backward_s);
  // Without the delayed parameter update (sec. 5.2) the CPU step and the copy of the updated
  // weights back to the GPU stand between this step's backward and the next forward.
  c.cpu_step_s = params * host_bytes_per_param / host_bw;
  c.weights.total_s = params * weight_bytes / link_bw;
  c.weights.exposed_s = c.weights.total_s;
  return c;
}

namespace train_eval {
namespace {

using size_math::d;

// NCCL's data-parallel collectives run on `dp_comm_sms` of the GPU's SMs (data/fitted/efficiency/
// [overlap]); the compute they overlap loses that share of the SMs for as long as they run.
double dp_comm_sm_share(const TrainContext& ctx) {
  return std::min(1.0, ctx.efficiency->dp_comm_sms / std::max(1.0, static_cast<double>(ctx.device.sm_count)));
}

// The parameters of this GPU's optimizer shard (all of the rank's without ZeRO).
double optimizer_shard_params(const Plan& p, const RankLoad& worst) {
  const double dense_params = worst.params - worst.expert_params;
  const double shard = p.zero >= 1 ? static_cast<double>(std::min(p.shard_group(), p.dp)) * p.cp : 1.0;
  const double expert_shard = p.zero >= 1 ? std::max(1.0, static_cast<double>(p.tp) * p.cp * p.dp / p.ep) : 1.0;
  return dense_params / shard + worst.expert_params / expert_shard;
}

// Bytes Adam moves per parameter: it reads the gradient and the fp32 master weight and
// moments, writes them back and the 16-bit weight (memory-bound, on the GPU or the host).
double optimizer_bytes_per_param(const StateBytes& state) { return state.grad + 2 * state.optimizer + state.weight; }

// The edge bucket group of Megatron-Core's distributed optimizer / DDP (BucketWalk): the
// dense (non-expert) parameters of the first pipeline chunk, walked in backward order (the
// output head when the chunk has it, the layers last to first, the embedding). With fp8
// primary weights gathered in fp8, the fp8 weights fill a buffer of their own and every 16-bit
// parameter (embedding, head, norms, routers) joins the last fp8 bucket's group
// (param_and_grad_buffer.py, partition_buckets: "merge all non-fp8 buckets into the last fp8
// bucket group"): then the group is all the 16-bit parameters and the first layers' fp8 ones.
struct EdgeBucket {
  double params = 0;        // gradients reduced
  double weight_bytes = 0;  // weights gathered
};

// The kind of layer i, read off the context's prefix counts (the one present kind whose count
// steps up at i).
std::size_t kind_of_layer(const TrainContext& ctx, std::int64_t i) {
  const auto& before = ctx.prefix[static_cast<std::size_t>(i)];
  const auto& after = ctx.prefix[static_cast<std::size_t>(i) + 1];
  for (int j = 0; j < ctx.present_kind_count; ++j) {
    const std::size_t k = ctx.present_kinds[static_cast<std::size_t>(j)];
    if (after[k] != before[k]) return k;
  }
  return ctx.present_kinds[0];
}

EdgeBucket dp_edge_bucket(const TrainContext& ctx, const Plan& p, const LayerCosts& costs, double bucket_params,
                          bool fp8_gather, double weight_bytes_per_param) {
  const ModelSpec& m = *ctx.model;
  const std::int64_t chunks = static_cast<std::int64_t>(p.pp) * p.vp;
  // Chunk 0's layers as the plan splits them (an explicit layout's count, else the even split).
  const LayerRange first = plan_chunk_layers(p, m.layers, 0);
  const double head = chunks == 1 ? costs.head.params : 0.0;
  BucketWalk walk{bucket_params};
  double sixteen_bit = costs.embedding.params + head;
  if (!fp8_gather) walk.add(head);
  for (std::int64_t i = first.end - 1; i >= first.begin; --i) {
    const KindCost& k = costs.kinds[kind_of_layer(ctx, i)];
    const double dense = k.params - k.expert_params;
    const double fp8 =
        fp8_gather ? std::max(0.0, k.low_precision_params - std::min(k.expert_params, k.low_precision_params)) : 0.0;
    walk.add(fp8_gather ? fp8 : dense);
    sixteen_bit += dense - fp8;
  }
  EdgeBucket e;
  if (fp8_gather) {
    e.params = walk.last_params + sixteen_bit;
    e.weight_bytes = walk.last_params * precision_bytes(Precision::fp8) + sixteen_bit * weight_bytes_per_param;
  } else {
    walk.add(costs.embedding.params);
    e.params = walk.last_params;
    e.weight_bytes = e.params * weight_bytes_per_param;
  }
  return e;
}

}  // namespace

CommCost data_parallel_comm(Eval& ev, const MicroBatchShape& s, const RankLoad& worst, const LayerCosts& costs) {
  const TrainContext& ctx = ev.ctx;
  const Plan& p = ev.plan;
  const Placement& pl = s.placement;
  const int micro_batches = s.micro_batches;
  const double dense_params = worst.params - worst.expert_params;
  const double grad_bytes = dense_params * ctx.options.grad_reduce_bytes;
  const double expert_grad_bytes = worst.expert_params * ctx.options.grad_reduce_bytes;
  // fp8 primary weights under a per-tensor recipe gather the fp8 GEMMs' weights in fp8
  // (Megatron-Core --fp8-param-gather); mxfp8 gathers 16-bit values through the gradient buffer
  // and quantises on the copy (reuse_grad_buf_for_mxfp8_param_ag), and blockwise is left at 16
  // bits too, so their bytes do not change.
  const bool fp8_gather =
      p.fp8_params && (p.scaling == ScalingRecipe::delayed || p.scaling == ScalingRecipe::tensorwise);
  const double fp8_dense_params = fp8_gather ? worst.low_precision_dense_params() : 0.0;
  const double weight_bytes = (dense_params - fp8_dense_params) * ctx.options.state.weight +
                              fp8_dense_params * precision_bytes(Precision::fp8);
  const double one_fwd = worst.fwd_s;
  const double one_bwd = worst.bwd_s;
  CommCost dp;
  const bool hsdp = p.shard_group() < p.dp;
  const double replica_ar = hsdp ? ev.coll(CollectiveOp::all_reduce, grad_bytes / (p.shard_group() * p.cp), pl.replica) : 0;
  const double expert_ar = ev.coll(CollectiveOp::all_reduce, expert_grad_bytes, pl.expert_dp);
  // The edge bucket group (dp_edge_bucket), where the framework's buckets are known (its DDP
  // and distributed optimizer, ZeRO 0-2): its collectives run with nothing beside them, the
  // rest's are hidden as before.
  // The run's own bucket size where its configuration sets one (Plan::dp_bucket_params).
  const double bucket_params =
      p.dp_bucket_params > 0 ? p.dp_bucket_params : (ctx.framework ? ctx.framework->dp_bucket_params : 0.0);
  const bool bucketed = bucket_params > 0 && p.zero <= 2;
  EdgeBucket edge;
  if (bucketed) {
    edge = dp_edge_bucket(ctx, p, costs, bucket_params, fp8_gather, ctx.options.state.weight);
    edge.params = std::min(edge.params, dense_params);
    edge.weight_bytes = std::min(edge.weight_bytes, weight_bytes);
  }
  const double edge_grad_bytes = edge.params * ctx.options.grad_reduce_bytes;
  // The rest go one bucket per collective (plan/comm_config.h): each call pays the collective's
  // fixed cost. One collective of all the bytes where the framework's buckets are unknown.
  const double buckets = bucketed ? dp_bucket_count(dense_params - edge.params, bucket_params) : 1.0;
  auto per_bucket = [&](CollectiveOp op, double bytes, const GroupPlacement& g) {
    return buckets * ev.coll(op, bytes / buckets, g);
  };
  CommCost& edge_cost = ev.est.breakdown.dp_edge;
  edge_cost = {};
  if (p.zero == 0) {
    // DDP: bucketed AllReduce overlapped with the last micro-batch's backward.
    const double edge_ar = ev.coll(CollectiveOp::all_reduce, edge_grad_bytes, pl.grad);
    const double hidden = per_bucket(CollectiveOp::all_reduce, grad_bytes - edge_grad_bytes, pl.grad) + expert_ar;
    dp.total_s = edge_ar + hidden;
    // Hidden as far as the backward lasts; what it hides still costs the backward the share of
    // the SMs NCCL holds (the same form as the EP AllToAll's, ep_exposed_s).
    dp.exposed_s = edge_ar + std::max(hidden - one_bwd, dp_comm_sm_share(ctx) * hidden);
    edge_cost = {edge_ar, edge_ar};
  } else if (p.zero <= 2 || p.pp > 1) {
    // Distributed optimizer: ReduceScatter gradients after the last backward, AllGather the
    // updated weights before the next forward; both overlapped with that micro-batch.
    // FSDP under a pipeline schedule does the same: PyTorch's pipelining keeps a stage's
    // weights gathered and its gradients unsharded across the micro-batches of a step and
    // reduce-scatters at the last backward (torch.distributed.pipelining: reshard and gradient
    // sync only on the last micro-batch; torchtitan: no reshard after forward with PP; Llama 3,
    // arXiv:2407.21783 sec. 3.3.1: no reshard after forward, to avoid the backward all-gather).
    // With the framework's buckets known, the edge group's reduce-scatter runs after the
    // backward and its all-gather before the forward (BucketWalk): exposed whole.
    const GroupPlacement& g = hsdp ? pl.shard : pl.grad;
    const double edge_rs = ev.coll(CollectiveOp::reduce_scatter, edge_grad_bytes, g);
    const double edge_ag = ev.coll(CollectiveOp::all_gather, edge.weight_bytes, g);
    const double rs =
        per_bucket(CollectiveOp::reduce_scatter, grad_bytes - edge_grad_bytes, g) + replica_ar + expert_ar;
    const double ag = per_bucket(CollectiveOp::all_gather, weight_bytes - edge.weight_bytes, g);
    dp.total_s = edge_rs + edge_ag + rs + ag;
    const double sm_share = dp_comm_sm_share(ctx);
    dp.exposed_s =
        edge_rs + edge_ag + std::max(rs - one_bwd, sm_share * rs) + std::max(ag - one_fwd, sm_share * ag);
    edge_cost = {edge_rs + edge_ag, edge_rs + edge_ag};
  } else {
    // FSDP / ZeRO-3 without a pipeline: every micro-batch gathers each unit's weights (one
    // transformer layer, the wrapping FSDP, torchtitan and llm-foundry use) for its forward and
    // again for its backward, and reduce-scatters its gradients, each unit one collective
    // prefetched behind the neighbouring unit's compute (fsdp_micro_batch_cost).
    const double units = std::max(1.0, worst.layers);
    const double ag = ev.coll(CollectiveOp::all_gather, weight_bytes / units, pl.shard);
    const double rs = ev.coll(CollectiveOp::reduce_scatter, grad_bytes / units, pl.shard);
    const CommCost mb = fsdp_micro_batch_cost(units, ag, rs, one_fwd / units, one_bwd / units, dp_comm_sm_share(ctx));
    dp.total_s = mb.total_s * micro_batches + replica_ar + expert_ar;
    dp.exposed_s = mb.exposed_s * micro_batches + replica_ar + std::max(0.0, expert_ar - one_bwd);
  }
  return dp;
}

CommCost pipeline_comm(Eval& ev, const MicroBatchShape& s) {
  const Plan& p = ev.plan;
  CommCost pp;
  if (s.stages > 1) {
    const double bytes = s.tokens * d(ev.ctx.model->hidden) * s.act_bytes / (s.op.sp ? p.tp : 1);
    const double one =
        ev.coll(CollectiveOp::send_recv, bytes, place_group(2, p.tp * p.cp * p.dp, ev.ctx.domain_gpus));
    pp.total_s = 2.0 * p.vp * (s.micro_batches + s.stages - 1) * one;
    // 1F1B waits on each transfer; the interleaved schedule overlaps them except in the fill.
    pp.exposed_s = p.vp == 1 ? pp.total_s : 2.0 * p.vp * (s.stages - 1) * one;
  }
  return pp;
}

// Optimizer step on the GPU: one fused streaming kernel, at its measured share of the HBM
// bandwidth where the family has one (cost/roofline.h), else the memory-bound kernels'.
double optimizer_step_s(const TrainContext& ctx, const Plan& p, const StateBytes& state, const RankLoad& worst) {
  // An fp32 model's weights are the master copy, read and written by the step (fused AdamW: the
  // fp32 weights, m and v read and written, the fp32 gradient read: 28 B per parameter); the
  // reference's 16-bit working weights are only written.
  const double master_rw = ctx.framework && ctx.framework->memory.fp32_model ? state.weight : 0;
  const double bw = ctx.device.optimizer_bw_bytes_per_s > 0 ? ctx.device.optimizer_bw_bytes_per_s
                                                             : ctx.device.memory_bw_bytes_per_s;
  return optimizer_shard_params(p, worst) * (optimizer_bytes_per_param(state) + master_rw) / bw;
}

// Optimizer offload: the same bytes over the host's DRAM at this GPU's share of it (the GPUs of
// the plan on one host split it), the transfers over the GPU's host link.
OffloadCost offload_step(const TrainContext& ctx, const Plan& p, const StateBytes& state, const RankLoad& worst) {
  const double gpus_on_host = std::max(1, std::min(ctx.host_gpus, p.gpus()));
  return optimizer_offload_cost(optimizer_shard_params(p, worst), ctx.options.grad_reduce_bytes, state.weight,
                                optimizer_bytes_per_param(state), ctx.host_link_bw_bytes_per_s,
                                ctx.host_memory_bw_bytes_per_s / gpus_on_host, worst.bwd_s);
}

}  // namespace train_eval
}  // namespace gpuplan
