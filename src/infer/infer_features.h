// The serving features `gpuplan infer` answers on top of its plan (issue 14, deliverable 3):
// speculative decoding / MTP, prefix caching, disaggregated prefill/decode and service-level
// objectives. Their request fields are one block of InferRequest (all off by default: the
// plain estimate is unchanged) and their answers one block of InferAnswer.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "catalog/catalog.h"
#include "infer/evaluate.h"
#include "infer/infer_context.h"
#include "infer/infer_plan.h"
#include "infer/disagg.h"
#include "infer/prefix_cache.h"
#include "infer/slo.h"
#include "infer/spec_decode.h"

namespace gpuplan {

struct InferFeatures {
  // Speculative decoding: on when spec_draft_tokens > 0.
  int spec_draft_tokens = 0;          // --spec-draft-tokens K
  std::optional<double> spec_acceptance;  // --spec-acceptance A (required with K)
  std::string spec_draft = "mtp";     // --spec-draft: a zoo model id, or mtp (the target's MTP module)
  // Prefix caching: on when either is given.
  std::optional<double> prefix_hit_rate;       // --prefix-hit-rate H; default S / input-len
  std::optional<double> shared_prefix_tokens;  // --shared-prefix-tokens S; default 0
  // Disaggregated prefill/decode: on when disagg is given.
  std::string disagg;                    // --disagg P:D (prefill GPUs : decode GPUs)
  std::optional<int> disagg_prefill_tp;  // --disagg-prefill-tp; default the plan's tp
  std::optional<int> disagg_decode_tp;   // --disagg-decode-tp; default the plan's tp
  std::string disagg_prefill_gpu;        // --disagg-prefill-gpu: the prefill pool's GPU; default --gpu
  // Service-level objectives: on when any is given.
  std::optional<double> slo_ttft_ms;   // --slo-ttft-ms
  std::optional<double> slo_tpot_ms;   // --slo-tpot-ms
  std::optional<double> request_rate;  // --request-rate (requests/s, Poisson arrivals)
};

struct SpecDecodeAnswer {
  std::shared_ptr<ModelSpec> draft_model;  // owns what draft_ctx.model points at
  InferContext draft_ctx;
  SpecDecodeInput input;
  SpecDecodeEstimate estimate;
};

struct PrefixCacheAnswer {
  PrefixCacheInput input;
  PrefixCacheEstimate estimate;
};

struct DisaggAnswer {
  // The prefill pool's GPU when it is not the plan's (--disagg-prefill-gpu): its own context,
  // on the GPU's usual node, with the target's model and engine.
  std::optional<InferContext> prefill_ctx;
  DisaggInput input;
  DisaggEstimate estimate;
};

struct SloAnswer {
  SloInput input;
  SloEstimate estimate;
};

struct InferFeatureAnswer {
  std::optional<SpecDecodeAnswer> spec;
  std::optional<PrefixCacheAnswer> prefix;
  std::optional<DisaggAnswer> disagg;
  std::optional<SloAnswer> slo;
};

// The prefill pool's context on `gpu_id`, the usual node of that GPU, with the decode context's
// model, engine and router imbalance (the decode context itself when it is the same GPU). Error
// names `flag` for an unknown GPU or one that cannot run `weights` (weights_refusal).
InferContext prefill_pool_context(const Catalog& catalog, const InferContext& decode, const std::string& gpu_id,
                                  Precision weights, const char* flag);

// --disagg "P:D": prefill GPUs and decode GPUs, whole numbers 1 to 999,999; Error names --disagg.
std::pair<int, int> parse_disagg_ratio(const std::string& text);

// Throws Error naming the flag on bad input (acceptance outside [0, 1), K < 1, a draft whose
// vocabulary differs from the target's, MTP on a model without an MTP module).
InferFeatureAnswer answer_infer_features(const Catalog& catalog, const InferContext& target, const InferPlan& plan,
                                         const InferEstimate& base, const InferFeatures& features);

}  // namespace gpuplan
