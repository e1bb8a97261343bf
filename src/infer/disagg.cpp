#include "infer/disagg.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "infer/evaluate.h"
#include "infer/memory_budget.h"
#include "infer/step.h"
#include "workload/kv_cache.h"

namespace gpuplan {
namespace {

InferPlan pool_plan(const InferPlan& plan, int tp) {
  InferPlan p = plan;
  p.tp = tp;
  p.pp = 1;
  p.replicas = 1;
  p.ep = tp % plan.ep == 0 ? plan.ep : 1;
  return p;
}

// Point-to-point time of `bytes` from one prefill rank to one decode rank: inside one scale-up
// domain when both pools fit in it, else across the network (the collective model's send/recv,
// data/fitted/collectives), else the PCIe host path.
double transfer_s(const InferContext& ctx, double bytes, bool one_domain, std::string& fabric) {
  if (ctx.topology) {
    CollectiveRequest req;
    req.op = CollectiveOp::send_recv;
    req.bytes = bytes;
    req.gpus_per_domain = one_domain ? 2 : 1;
    req.domains = one_domain ? 1 : 2;
    const CollectiveTime est = estimate_collective_time(req, *ctx.topology);
    if (est.feasible) {
      fabric = one_domain ? "scale-up domain" : "network";
      return est.time_s;
    }
  }
  fabric = "PCIe";
  return bytes / ctx.pcie_bw_bytes_per_s + ctx.pcie_hop_s;
}

}  // namespace

DisaggEstimate estimate_disagg(const InferContext& ctx, const InferPlan& plan, const DisaggInput& in) {
  DisaggEstimate d;
  const Engine& e = *ctx.engine;
  const InferPlan pplan = pool_plan(plan, in.prefill_tp);
  const InferPlan dplan = pool_plan(plan, in.decode_tp);
  for (const InferPlan* p : {&pplan, &dplan}) {
    if (std::string why = check_infer_plan(*ctx.model, *p); !why.empty()) {
      d.reason = (p == &pplan ? "prefill pool: " : "decode pool: ") + why;
      return d;
    }
  }
  const InferMemory pmem = infer_memory(ctx, pplan);
  const InferMemory dmem = infer_memory(ctx, dplan);
  if (!pmem.fits) {
    d.reason = "prefill pool: " + pmem.reason;
    return d;
  }
  if (!dmem.fits) {
    d.reason = "decode pool: " + dmem.reason;
    return d;
  }
  d.prefill_replicas = in.prefill_gpus / in.prefill_tp;
  d.decode_replicas = in.decode_gpus / in.decode_tp;
  const double prompt = static_cast<double>(plan.input_len);
  const double out = static_cast<double>(plan.output_len);

  // Prefill pool: a step holds as many whole prompts as its token budget (and the KV memory)
  // allows; a prompt longer than the budget runs in chunks of it.
  const double budget = e.max_num_batched_tokens;
  d.prompts_per_prefill_step =
      prompt <= budget ? std::max(1.0, std::min(std::floor(budget / prompt), std::min(pmem.max_seqs, e.max_num_seqs)))
                       : budget / prompt;
  d.prefill_step_s = step_cost(ctx, pplan, {0, 0, d.prompts_per_prefill_step * prompt, prompt}).total_s;
  d.prefill_latency_s = d.prefill_step_s / std::min(1.0, d.prompts_per_prefill_step);
  const double prefill_rps_one = d.prompts_per_prefill_step / d.prefill_step_s;
  d.prefill_requests_per_s = prefill_rps_one * d.prefill_replicas;

  // KV transfer: each prefill rank sends its share of the prompt's KV (MLA's replicated latent:
  // the ranks split it) to the decode pool once the step ends; the step's prompts share the link.
  d.kv_bytes_per_request = kv_bytes_per_seq_per_gpu(ctx.kv, prompt, plan.kv, 1, 1);
  d.kv_bytes_per_gpu = d.kv_bytes_per_request / in.prefill_tp;
  const bool one_domain = ctx.topology && ctx.topology->scaleup != ScaleupKind::pcie &&
                          in.prefill_gpus + in.decode_gpus <= ctx.topology->domain_gpus;
  const double step_prompts = std::max(1.0, d.prompts_per_prefill_step);
  d.kv_transfer_s = transfer_s(ctx, d.kv_bytes_per_gpu * step_prompts, one_domain, d.fabric);
  // Transfers of one step overlap the next step's prefill: the links cap the pool's rate too.
  d.transfer_requests_per_s = step_prompts / d.kv_transfer_s * d.prefill_replicas;

  // Decode pool: decodes only, at the plan's load per replica within memory and the scheduler.
  const double max_running = std::min(dmem.max_seqs, e.max_num_seqs);
  const double wanted = plan.mode == InferMode::max_throughput ? max_running : plan.load;
  d.decode_running = std::max(1.0, std::min(wanted, max_running));
  const bool capped = plan.mode == InferMode::max_throughput || wanted > max_running;
  d.decode_limit = !capped ? "requested" : dmem.max_seqs <= e.max_num_seqs ? "KV capacity" : "scheduler max_num_seqs";
  d.decode_step_s = step_cost(ctx, dplan, {d.decode_running, prompt + 0.5 * out, 0, 0}).total_s;
  // The first token comes from the prefill pool; the decode pool produces the other O − 1.
  d.decode_requests_per_s = d.decode_running / (std::max(1.0, out - 1) * d.decode_step_s) * d.decode_replicas;

  d.tpot_s = d.decode_step_s;
  d.ttft_s = e.request_overhead_s + d.prefill_latency_s + d.kv_transfer_s;
  const double prefill_side = std::min(d.prefill_requests_per_s, d.transfer_requests_per_s);
  d.requests_per_s = std::min(prefill_side, d.decode_requests_per_s);
  d.bottleneck = d.decode_requests_per_s <= prefill_side                       ? "decode"
                 : d.transfer_requests_per_s < d.prefill_requests_per_s ? "KV transfer"
                                                                         : "prefill";
  d.output_tokens_per_s = d.requests_per_s * out;
  d.output_tokens_per_s_per_gpu = d.output_tokens_per_s / (in.prefill_gpus + in.decode_gpus);

  // Balance (DistServe §4: size each phase's pool to the same goodput): GPU-seconds per request
  // of each pool, and the best whole-replica split of the same GPUs.
  const double prefill_rps_gpu = std::min(prefill_rps_one, step_prompts / d.kv_transfer_s) / in.prefill_tp;
  const double decode_rps_gpu = d.decode_requests_per_s / d.decode_replicas / in.decode_tp;
  d.balanced_prefill_share = (1 / prefill_rps_gpu) / (1 / prefill_rps_gpu + 1 / decode_rps_gpu);
  const int total = in.prefill_gpus + in.decode_gpus;
  for (int pg = in.prefill_tp; pg + in.decode_tp <= total; pg += in.prefill_tp) {
    const int dg = (total - pg) / in.decode_tp * in.decode_tp;
    const double rps = std::min(pg * prefill_rps_gpu, dg * decode_rps_gpu);
    if (rps > d.balanced_requests_per_s) {
      d.balanced_requests_per_s = rps;
      d.balanced_prefill_gpus = pg;
      d.balanced_decode_gpus = dg;
    }
  }
  d.feasible = true;
  return d;
}

}  // namespace gpuplan
