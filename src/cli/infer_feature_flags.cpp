#include "cli/infer_feature_flags.h"

#include <array>
#include <memory>

namespace gpuplan {

std::function<void()> add_infer_feature_flags(CliCommand& cmd, InferFeatures& f) {
  auto acceptance = std::make_shared<double>(0);
  cmd.add_option("--spec-draft-tokens", f.spec_draft_tokens,
                 "Speculative decoding: tokens the draft proposes per verify step (K; default off)");
  auto* acc = cmd.add_option("--spec-acceptance", *acceptance,
                             "Speculative decoding: per-token acceptance rate A in [0, 1) (required with K)");
  cmd.add_option("--spec-draft", f.spec_draft,
                 "Speculative decoding draft: a model id with the target's vocabulary, or mtp (the target's "
                 "multi-token-prediction module; default)");
  auto hit = std::make_shared<double>(0);
  auto shared = std::make_shared<double>(0);
  auto* hit_opt = cmd.add_option("--prefix-hit-rate", *hit,
                                 "Prefix caching: share of prompt tokens found in the KV cache, 0 to 1 (default "
                                 "--shared-prefix-tokens / --input-len)");
  auto* shared_opt = cmd.add_option("--shared-prefix-tokens", *shared,
                                    "Prefix caching: prompt tokens every request shares (a system prompt), held once");
  cmd.add_option("--disagg", f.disagg,
                 "Disaggregated prefill/decode: prefill GPUs : decode GPUs, e.g. 2:6 (KV moves over the fabric)");
  auto ptp = std::make_shared<int>(0);
  auto dtp = std::make_shared<int>(0);
  auto* ptp_opt = cmd.add_option("--disagg-prefill-tp", *ptp, "Disaggregated: TP of each prefill replica (default --tp)");
  auto* dtp_opt = cmd.add_option("--disagg-decode-tp", *dtp, "Disaggregated: TP of each decode replica (default --tp)");
  auto slo = std::make_shared<std::array<double, 3>>();
  std::array<CliOption*, 3> slo_opts{
      cmd.add_option("--slo-ttft-ms", (*slo)[0], "SLO: time-to-first-token target in ms (goodput, GPUs for a rate)"),
      cmd.add_option("--slo-tpot-ms", (*slo)[1], "SLO: time-per-output-token target in ms"),
      cmd.add_option("--request-rate", (*slo)[2],
                     "SLO: requests/s offered (Poisson): the fewest GPUs, $/hour and p50/p90 TTFT that serve it")};
  return [&f, acceptance, acc, hit, hit_opt, shared, shared_opt, ptp, ptp_opt, dtp, dtp_opt, slo, slo_opts] {
    if (slo_opts[0]->count() > 0) f.slo_ttft_ms = (*slo)[0];
    if (slo_opts[1]->count() > 0) f.slo_tpot_ms = (*slo)[1];
    if (slo_opts[2]->count() > 0) f.request_rate = (*slo)[2];
    if (ptp_opt->count() > 0) f.disagg_prefill_tp = *ptp;
    if (dtp_opt->count() > 0) f.disagg_decode_tp = *dtp;
    if (acc->count() > 0) f.spec_acceptance = *acceptance;
    if (hit_opt->count() > 0) f.prefix_hit_rate = *hit;
    if (shared_opt->count() > 0) f.shared_prefix_tokens = *shared;
  };
}

}  // namespace gpuplan
