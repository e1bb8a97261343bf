#include "infer/infer_curve.h"

#include <algorithm>

namespace gpuplan {

std::vector<InferCurvePoint> infer_curve(const Catalog& catalog, const InferRequest& request) {
  InferRequest r = request;
  r.batch.reset();
  r.max_throughput = false;
  r.concurrency = 1.0;
  r.simulation.enabled = false;  // the curve is the closed-form one; the simulation answers the plan itself
  std::vector<InferCurvePoint> curve;
  const InferAnswer first = answer_infer(catalog, r);
  // Doubling up to the sequences the KV budget holds; past it the engine queues and the TPOT
  // stops moving while TTFT grows with the queue.
  const double top = std::min(4096.0, std::max(1.0, first.estimate.memory.max_seqs));
  for (double c = 1; c <= top; c *= 2) {
    r.concurrency = c;
    const InferAnswer a = c == 1 ? first : answer_infer(catalog, r);
    curve.push_back({c, a.estimate.feasible, a.estimate.point.tpot_s, a.estimate.point.ttft_s,
                     a.estimate.output_tokens_per_s_per_gpu});
    if (!a.estimate.feasible) break;
  }
  return curve;
}

InferRequest infer_request_for(const InferSearchRequest& search, const InferPlan& plan) {
  InferRequest r;
  static_cast<InferCommon&>(r) = static_cast<const InferCommon&>(search);
  r.weights = std::string(precision_name(plan.weights));
  r.kv = std::string(precision_name(plan.kv));
  r.tp = plan.tp;
  r.pp = plan.pp;
  r.ep = plan.ep;
  r.attention_dp = plan.attention_dp;
  r.gpus = plan.gpus_per_replica();
  r.concurrency = plan.load;
  return r;
}

}  // namespace gpuplan
