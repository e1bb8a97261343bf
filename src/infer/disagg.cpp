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
  return estimate_disagg(ctx, ctx, plan, in);
}

DisaggEstimate estimate_disagg(const InferContext& pctx, const InferContext& dctx, const InferPlan& plan,
                               const DisaggInput& in) {
  DisaggEstimate d;
  // One engine runs both pools (its scheduler limits and per-request cost); each pool's step is
  // costed on its own GPU.
  const Engine& e = *dctx.engine;
  const bool two_types = pctx.gpu != dctx.gpu;
  d.prefill_gpu = pctx.gpu ? pctx.gpu->id : std::string{};
  d.decode_gpu = dctx.gpu ? dctx.gpu->id : std::string{};
  const InferPlan pplan = pool_plan(plan, in.prefill_tp);
  const InferPlan dplan = pool_plan(plan, in.decode_tp);
  for (const InferPlan* p : {&pplan, &dplan}) {
    if (std::string why = check_infer_plan(*pctx.model, *p); !why.empty()) {
      d.reason = (p == &pplan ? "prefill pool: " : "decode pool: ") + why;
      return d;
    }
  }
  const InferMemory pmem = infer_memory(pctx, pplan);
  const InferMemory dmem = infer_memory(dctx, dplan);
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
  d.prefill_step_s = step_cost(pctx, pplan, {0, 0, d.prompts_per_prefill_step * prompt, prompt}).total_s;
  d.prefill_latency_s = d.prefill_step_s / std::min(1.0, d.prompts_per_prefill_step);
  const double prefill_rps_one = d.prompts_per_prefill_step / d.prefill_step_s;
  d.prefill_requests_per_s = prefill_rps_one * d.prefill_replicas;

  // KV transfer: each prefill rank sends its share of the prompt's KV (MLA's replicated latent:
  // the ranks split it) to the decode pool once the step ends; the step's prompts share the link.
  d.kv_bytes_per_request = kv_bytes_per_seq_per_gpu(pctx.kv, prompt, plan.kv, 1, 1);
  d.kv_bytes_per_gpu = d.kv_bytes_per_request / in.prefill_tp;
  const bool one_domain = !two_types && pctx.topology && pctx.topology->scaleup != ScaleupKind::pcie &&
                          in.prefill_gpus + in.decode_gpus <= pctx.topology->domain_gpus;
  const double step_prompts = std::max(1.0, d.prompts_per_prefill_step);
  const double step_kv_bytes = d.kv_bytes_per_gpu * step_prompts;
  if (!two_types) {
    d.kv_transfer_s = transfer_s(pctx, step_kv_bytes, one_domain, d.fabric);
  } else {
    // Two GPU types sit in different nodes: the KV crosses the network, and the slower end's
    // NIC path sets the time (each node's send/recv on its own fabric figures).
    if (!pctx.topology || !dctx.topology) {
      d.reason = fmt::format("KV transfer: {}'s node has no network in the catalog to reach the other pool; "
                             "disaggregate over one GPU type, or add a system with a network for it",
                             (!pctx.topology ? pctx : dctx).gpu->id);
      return d;
    }
    std::string fabric_p, fabric_d;
    d.kv_transfer_s = std::max(transfer_s(pctx, step_kv_bytes, false, fabric_p),
                               transfer_s(dctx, step_kv_bytes, false, fabric_d));
    d.fabric = fabric_p == fabric_d ? fabric_p : fabric_p + " / " + fabric_d;
  }
  // Transfers of one step overlap the next step's prefill: the links cap the pool's rate too.
  d.transfer_requests_per_s = step_prompts / d.kv_transfer_s * d.prefill_replicas;

  // Decode pool: decodes only, at the plan's load per replica within memory and the scheduler.
  const double max_running = std::min(dmem.max_seqs, e.max_num_seqs);
  const double wanted = plan.mode == InferMode::max_throughput ? max_running : plan.load;
  d.decode_running = std::max(1.0, std::min(wanted, max_running));
  const bool capped = plan.mode == InferMode::max_throughput || wanted > max_running;
  d.decode_limit = !capped ? "requested" : dmem.max_seqs <= e.max_num_seqs ? "KV capacity" : "scheduler max_num_seqs";
  d.decode_step_s = step_cost(dctx, dplan, {d.decode_running, prompt + 0.5 * out, 0, 0}).total_s;
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
  const double p_price = pctx.price_usd_per_gpu_hour;
  const double d_price = dctx.price_usd_per_gpu_hour;
  if (p_price > 0 && d_price > 0) {
    d.cost_usd_per_hour = in.prefill_gpus * p_price + in.decode_gpus * d_price;
    d.usd_per_million_output_tokens = d.cost_usd_per_hour / (d.output_tokens_per_s * 3600) * 1e6;
  }
  if (two_types) {
    // Dollars, not GPUs, are what two types trade: the prefill share of the spend at equal pool
    // rates when both have a price, else of the GPUs.
    const double pw = p_price > 0 && d_price > 0 ? p_price : 1;
    const double dw = p_price > 0 && d_price > 0 ? d_price : 1;
    d.balanced_prefill_share = (pw / prefill_rps_gpu) / (pw / prefill_rps_gpu + dw / decode_rps_gpu);
    const double replica_rps = prefill_rps_gpu * in.prefill_tp;
    const int replicas = std::max(1, static_cast<int>(std::ceil(d.decode_requests_per_s / replica_rps - 1e-9)));
    d.balanced_prefill_gpus = replicas * in.prefill_tp;
    d.balanced_decode_gpus = in.decode_gpus;
    d.balanced_requests_per_s = std::min(d.balanced_prefill_gpus * prefill_rps_gpu, d.decode_requests_per_s);
    d.feasible = true;
    return d;
  }
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
