#include "infer/infer_features.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "catalog/resolve_model.h"
#include "catalog/system_choice.h"
#include "core/error.h"
#include "infer/infer_request.h"

namespace gpuplan {
namespace {

SpecDecodeAnswer answer_spec(const Catalog& catalog, const InferContext& target, const InferPlan& plan,
                             const InferEstimate& base, const InferFeatures& f) {
  // A bad acceptance rate is named first, whatever else is missing: it is the value given.
  if (f.spec_acceptance && !(*f.spec_acceptance >= 0 && *f.spec_acceptance < 1)) {
    throw Error(fmt::format("--spec-acceptance {}: the per-token acceptance rate must be in [0, 1); give e.g. 0.7",
                            *f.spec_acceptance));
  }
  if (f.spec_draft_tokens < 1) {
    throw Error(fmt::format("--spec-draft-tokens {}: a draft proposes at least 1 token per step; use 1 or more",
                            f.spec_draft_tokens));
  }
  if (f.spec_draft_tokens > 64) {
    throw Error(fmt::format("--spec-draft-tokens {}: more than 64 drafted tokens per step is outside what engines run; "
                            "use 1 to 64 (typically 1 to 8)",
                            f.spec_draft_tokens));
  }
  if (!f.spec_acceptance) {
    throw Error("--spec-draft-tokens needs --spec-acceptance A: the per-token acceptance rate, 0 <= A < 1 "
                "(e.g. 0.7; DeepSeek-V3 reports 0.85-0.9 for its MTP token)");
  }
  const double a = *f.spec_acceptance;
  if (!(a >= 0 && a < 1)) {
    throw Error(fmt::format("--spec-acceptance {}: the per-token acceptance rate must be in [0, 1); give e.g. 0.7", a));
  }
  if (plan.pp > 1) {
    throw Error(fmt::format("--spec-draft-tokens with --pp {}: speculative decoding is modelled without pipeline "
                            "parallelism; use --pp 1 (more --tp or replicas)",
                            plan.pp));
  }
  SpecDecodeAnswer s;
  const ModelSpec& tm = *target.model;
  s.input.draft_tokens = f.spec_draft_tokens;
  s.input.acceptance = a;
  s.input.mtp = f.spec_draft == "mtp";
  if (s.input.mtp) {
    if (tm.mtp_layers < 1) {
      throw Error(fmt::format("--spec-draft mtp: {} has no multi-token-prediction module (mtp_layers = 0); give a "
                              "draft model id with --spec-draft (same vocabulary)",
                              tm.id));
    }
    s.draft_model = std::make_shared<ModelSpec>(mtp_draft_model(tm));
  } else {
    std::shared_ptr<ModelSpec> owned;
    const ModelSpec& dm = resolve_model(catalog, f.spec_draft, owned);
    s.draft_model = owned ? owned : std::make_shared<ModelSpec>(dm);
    if (dm.vocab != tm.vocab) {
      throw Error(fmt::format("--spec-draft {}: its vocabulary ({} tokens) differs from {}'s ({}); a draft must share "
                              "the target's tokenizer: use a model of the same family, or mtp",
                              f.spec_draft, dm.vocab, tm.id, tm.vocab));
    }
  }
  s.draft_ctx = make_infer_context(catalog, *s.draft_model, *target.gpu, *target.engine, target.system);
  // The draft runs at the target's TP when its heads allow (vLLM's default draft TP), else on one GPU.
  InferPlan dplan = plan;
  dplan.ep = 1;
  s.input.draft_tp = check_infer_plan(*s.draft_model, dplan).empty() ? plan.tp : 1;
  s.estimate = estimate_spec_decode(target, s.draft_ctx, plan, base, s.input);
  return s;
}

PrefixCacheAnswer answer_prefix(const InferContext& ctx, const InferPlan& plan, const InferEstimate& base,
                                const InferFeatures& f) {
  const double prompt = static_cast<double>(plan.input_len);
  PrefixCacheAnswer a;
  if (f.shared_prefix_tokens) {
    const double s = *f.shared_prefix_tokens;
    if (!(s >= 0 && s <= prompt && s == std::floor(s))) {
      throw Error(fmt::format("--shared-prefix-tokens {}: the tokens every prompt shares must be a whole number from "
                              "0 to --input-len {}",
                              s, plan.input_len));
    }
    a.input.shared_prefix_tokens = s;
  }
  if (f.prefix_hit_rate) {
    const double h = *f.prefix_hit_rate;
    if (!(h >= 0 && h <= 1)) {
      throw Error(fmt::format("--prefix-hit-rate {}: the share of prompt tokens found in the cache must be in [0, 1]; "
                              "give e.g. 0.5",
                              h));
    }
    if (h * prompt < a.input.shared_prefix_tokens) {
      throw Error(fmt::format("--prefix-hit-rate {}: below the shared prefix's share {} / {} = {:.4g}, which every "
                              "request hits; raise it, or lower --shared-prefix-tokens",
                              h, a.input.shared_prefix_tokens, plan.input_len, a.input.shared_prefix_tokens / prompt));
    }
    a.input.hit_rate = h;
  } else {
    a.input.hit_rate = a.input.shared_prefix_tokens / prompt;
  }
  a.estimate = estimate_prefix_cache(ctx, plan, base, a.input);
  return a;
}

DisaggAnswer answer_disagg(const Catalog& catalog, const InferContext& ctx, const InferPlan& plan,
                           const InferFeatures& f) {
  DisaggAnswer a;
  const auto [p, d] = parse_disagg_ratio(f.disagg);
  if (plan.pp > 1) {
    throw Error(fmt::format("--disagg with --pp {}: each pool is modelled with tensor parallelism only; use --pp 1 "
                            "and --disagg-prefill-tp / --disagg-decode-tp",
                            plan.pp));
  }
  if (plan.output_len < 2) {
    throw Error("--disagg with --output-len 1: the prefill pool produces the only token, there is nothing to decode; "
                "use --output-len 2 or more");
  }
  a.input.prefill_gpus = p;
  a.input.decode_gpus = d;
  a.input.prefill_tp = f.disagg_prefill_tp ? *f.disagg_prefill_tp : plan.tp;
  a.input.decode_tp = f.disagg_decode_tp ? *f.disagg_decode_tp : plan.tp;
  const auto check_tp = [](const char* flag, int tp, int gpus, const char* pool) {
    if (tp < 1) throw Error(fmt::format("{} {}: must be at least 1", flag, tp));
    if (gpus % tp != 0) {
      throw Error(fmt::format("{} {}: the {} pool's {} GPUs are not a multiple of it; change --disagg or {}", flag, tp,
                              pool, gpus, flag));
    }
  };
  check_tp("--disagg-prefill-tp", a.input.prefill_tp, p, "prefill");
  check_tp("--disagg-decode-tp", a.input.decode_tp, d, "decode");
  if (!f.disagg_prefill_gpu.empty() && f.disagg_prefill_gpu != ctx.gpu->id) {
    a.prefill_ctx = prefill_pool_context(catalog, ctx, f.disagg_prefill_gpu, plan.weights, "--disagg-prefill-gpu");
    a.estimate = estimate_disagg(*a.prefill_ctx, ctx, plan, a.input);
    return a;
  }
  a.estimate = estimate_disagg(ctx, plan, a.input);
  return a;
}

SloAnswer answer_slo(const InferContext& ctx, const InferPlan& plan, const InferFeatures& f) {
  const auto positive = [](const char* flag, const std::optional<double>& v, const char* what) {
    if (v && !(*v > 0 && std::isfinite(*v))) {
      throw Error(fmt::format("{} {}: {} must be a positive number; give one, or leave it out", flag, *v, what));
    }
    return v ? *v : 0.0;
  };
  SloAnswer a;
  a.input.ttft_s = positive("--slo-ttft-ms", f.slo_ttft_ms, "a time-to-first-token target in ms") * 1e-3;
  a.input.tpot_s = positive("--slo-tpot-ms", f.slo_tpot_ms, "a time-per-output-token target in ms") * 1e-3;
  a.input.request_rate = positive("--request-rate", f.request_rate, "a request rate in requests/s");
  a.estimate = estimate_slo(ctx, plan, a.input);
  return a;
}

}  // namespace

InferContext prefill_pool_context(const Catalog& catalog, const InferContext& decode, const std::string& gpu_id,
                                  Precision weights, const char* flag) {
  ClusterQuery query;
  query.gpu = gpu_id;
  ClusterChoice cluster;
  try {
    cluster = choose_cluster(catalog, query);
  } catch (const Error& err) {
    throw Error(fmt::format("{} '{}': {}", flag, gpu_id, err.what()));
  }
  if (cluster.gpu == decode.gpu) return decode;
  if (const std::string why = weights_refusal(catalog, *cluster.gpu, weights); !why.empty()) {
    throw Error(fmt::format("{} {} with --weights {}: {}; choose another prefill GPU", flag, cluster.gpu->id,
                            precision_name(weights), why));
  }
  InferContext p = make_infer_context(catalog, *decode.model, *cluster.gpu, *decode.engine, cluster.system);
  p.router_imbalance = decode.router_imbalance;
  return p;
}

std::pair<int, int> parse_disagg_ratio(const std::string& text) {
  const auto colon = text.find(':');
  const auto number = [](const std::string& part) {
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoi(part);
  };
  const int p = colon == std::string::npos ? 0 : number(text.substr(0, colon));
  const int d = colon == std::string::npos ? 0 : number(text.substr(colon + 1));
  if (p < 1 || d < 1) {
    throw Error(fmt::format("--disagg '{}': give prefill GPUs : decode GPUs as two whole numbers >= 1, e.g. 2:6",
                            text));
  }
  return {p, d};
}

InferFeatureAnswer answer_infer_features(const Catalog& catalog, const InferContext& target, const InferPlan& plan,
                                         const InferEstimate& base, const InferFeatures& f) {
  InferFeatureAnswer a;
  if (plan.attention_dp > 1) {
    // Their memory and step models split the KV cache tp ways; attention DP splits it per rank.
    const char* flag = f.spec_draft_tokens != 0 || f.spec_acceptance                ? "--spec-draft-tokens"
                       : f.prefix_hit_rate || f.shared_prefix_tokens                 ? "--prefix-hit-rate"
                       : !f.disagg.empty() || f.disagg_prefill_tp || f.disagg_decode_tp || !f.disagg_prefill_gpu.empty() ? "--disagg"
                                                                                       : nullptr;
    if (flag) {
      throw Error(fmt::format("--attention-dp {} with {}: speculative decoding, prefix caching and disaggregation "
                              "are modelled with attention TP-split only; drop one of the two (use --attention-dp 1)",
                              plan.attention_dp, flag));
    }
  }
  if (f.spec_draft_tokens != 0 || f.spec_acceptance) a.spec = answer_spec(catalog, target, plan, base, f);
  if (f.prefix_hit_rate || f.shared_prefix_tokens) a.prefix = answer_prefix(target, plan, base, f);
  if (!f.disagg.empty() || f.disagg_prefill_tp || f.disagg_decode_tp || !f.disagg_prefill_gpu.empty()) {
    if (f.disagg.empty()) throw Error("--disagg-prefill-tp / --disagg-decode-tp / --disagg-prefill-gpu need --disagg P:D (prefill : "
                  "decode GPUs)");
    a.disagg = answer_disagg(catalog, target, plan, f);
  }
  if (f.slo_ttft_ms || f.slo_tpot_ms || f.request_rate) a.slo = answer_slo(target, plan, f);
  return a;
}

}  // namespace gpuplan
