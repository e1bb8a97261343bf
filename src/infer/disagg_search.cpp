#include "infer/disagg_search.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpuplan {
namespace {

// The TPs a pool tries: powers of two up to the bound (the model's head count decides which are
// valid: estimate_disagg refuses the rest).
std::vector<int> pool_tps(int tp_max) {
  std::vector<int> tps;
  for (int tp = 1; tp <= tp_max; tp *= 2) tps.push_back(tp);
  return tps;
}

// Decode batches per replica: powers of two to 1,024; the estimate caps each at what memory and
// the scheduler hold (decode_limit), and a capped batch ends the ladder.
constexpr double kMaxDecodeBatch = 1024;

void score_candidate(DisaggCandidate& c, const InferContext& pctx, const InferContext& dctx, double output_len,
                     const DisaggSearchSpec& spec) {
  const DisaggEstimate& d = c.estimate;
  c.prefill_requests_per_s_per_gpu = std::min(d.prefill_requests_per_s, d.transfer_requests_per_s) / c.prefill_tp;
  c.decode_requests_per_s_per_gpu = d.decode_requests_per_s / c.decode_tp;
  c.prefill_gpus_per_decode_gpu = c.decode_requests_per_s_per_gpu / c.prefill_requests_per_s_per_gpu;
  // GPU-seconds per request of each pool; their sum is the fleet's per request.
  const double gs_prefill = 1 / c.prefill_requests_per_s_per_gpu;
  const double gs_decode = 1 / c.decode_requests_per_s_per_gpu;
  c.output_tokens_per_s_per_gpu = output_len / (gs_prefill + gs_decode);
  const double pp = pctx.price_usd_per_gpu_hour;
  const double dp = dctx.price_usd_per_gpu_hour;
  if (pp > 0 && dp > 0) {
    c.usd_per_million_output_tokens = (pp * gs_prefill + dp * gs_decode) / 3600 / output_len * 1e6;
  }
  c.meets_targets = (spec.ttft_s <= 0 || d.ttft_s <= spec.ttft_s) && (spec.tpot_s <= 0 || d.tpot_s <= spec.tpot_s);
  c.score = spec.objective == InferObjective::throughput ? c.output_tokens_per_s_per_gpu
            : c.usd_per_million_output_tokens > 0        ? 1e6 / c.usd_per_million_output_tokens
                                                         : 0;
}

}  // namespace

DisaggSearchResult search_disagg(const std::vector<const InferContext*>& prefill, const InferContext& decode,
                                 const InferPlan& base, const DisaggSearchSpec& spec) {
  DisaggSearchResult r;
  const double output_len = static_cast<double>(base.output_len);
  const std::vector<int> tps = pool_tps(std::max(1, spec.tp_max));
  std::string first_reason;
  for (const InferContext* pctx : prefill) {
    DisaggCandidate best_here;
    bool found_here = false;
    for (int ptp : tps) {
      for (int dtp : tps) {
        for (double batch = 1; batch <= kMaxDecodeBatch; batch *= 2) {
          InferPlan plan = base;
          plan.mode = InferMode::concurrency;
          plan.load = batch;
          DisaggInput in{ptp, dtp, ptp, dtp};
          DisaggCandidate c;
          c.prefill_gpu = pctx->gpu->id;
          c.prefill_tp = ptp;
          c.decode_tp = dtp;
          c.concurrency = batch;
          c.estimate = estimate_disagg(*pctx, decode, plan, in);
          ++r.evaluated;
          if (!c.estimate.feasible) {
            if (first_reason.empty()) first_reason = c.estimate.reason;
            break;  // a pool that does not fit at this TP fits at no batch
          }
          ++r.feasible;
          score_candidate(c, *pctx, decode, output_len, spec);
          const bool capped = c.estimate.decode_limit != "requested";
          if (c.meets_targets) ++r.meeting;
          if (c.meets_targets && c.score > 0) {
            if (!found_here || c.score > best_here.score * (1 + 1e-12)) {
              best_here = c;
              found_here = true;
            }
          }
          if (capped) break;  // larger batches run the same capped batch
        }
      }
    }
    if (!found_here) continue;
    r.best_per_prefill_gpu.push_back(best_here);
    if (!r.found || best_here.score > r.best.score * (1 + 1e-12)) {
      r.best = best_here;
      r.found = true;
    }
  }
  if (r.found) return r;
  if (r.feasible == 0) {
    r.reason = first_reason.empty() ? "no candidate" : "no pool fits: " + first_reason;
  } else if (spec.objective == InferObjective::cost && r.meeting > 0) {
    r.reason = "no prefill GPU has a price in the catalog together with the decode GPU; use --objective throughput";
  } else {
    r.reason = fmt::format("{} candidates fit, none meets the targets; relax --ttft-ms / --tpot-ms", r.feasible);
  }
  return r;
}

}  // namespace gpuplan
