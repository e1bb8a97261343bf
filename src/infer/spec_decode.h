// Speculative decoding and multi-token prediction (MTP) on top of a serving point: a draft
// proposes K tokens one at a time, the target verifies all K + 1 positions in one step, and
// with a per-token acceptance rate A the expected tokens kept per verify step are
// (1 − A^(K+1)) / (1 − A) (Leviathan, Kalman & Matias 2023, "Fast Inference from Transformers
// via Speculative Decoding", eq. 1, i.i.d. acceptance). The draft is a zoo model on the same
// GPUs, or the target's own MTP module (DeepSeek-V3 §2.2: one extra transformer block sharing
// the embedding and output head). Formulas: docs/model/serving-features.md §1.
#pragma once

#include <string>

#include "infer/evaluate.h"
#include "infer/infer_context.h"
#include "infer/infer_plan.h"

namespace gpuplan {

// Expected tokens one verify step keeps: K = 0 gives 1; A → 1 gives K + 1.
double spec_expected_tokens(int draft_tokens, double acceptance);

struct SpecDecodeInput {
  int draft_tokens = 1;     // K
  double acceptance = 0.7;  // A, per token, in [0, 1)
  bool mtp = false;         // the draft is the target's MTP module (its embedding and head are shared)
  int draft_tp = 1;         // the draft's tensor parallelism (the target's when its heads allow, else 1)
};

struct SpecDecodeEstimate {
  bool feasible = false;
  std::string reason;             // why not, naming the fix
  double expected_tokens = 0;     // kept per verify step
  double draft_weights_bytes = 0;     // per GPU (MTP: the module's layer only)
  double draft_kv_per_seq_bytes = 0;  // per GPU, at the target's counted length
  double spec_slots_per_seq_bytes = 0;  // the K speculative positions' KV in the target, per GPU
  double max_seqs = 0;            // sequences the KV budget holds with the draft on board
  double running = 0;             // the running batch with the draft (≤ the plain plan's)
  double draft_step_s = 0;        // one draft decode step of the running batch
  double verify_step_s = 0;       // one target step over K + 1 positions per sequence
  double decode_step_s = 0;       // the plain target decode step at the same batch (for comparison)
  double draft_prefill_s = 0;     // the draft's prefill of one prompt (added to TTFT)
  double ttft_s = 0;
  double tpot_s = 0;
  double base_tpot_s = 0;         // the plain plan's TPOT at the same running batch
  double output_tokens_per_s = 0;  // all replicas
  double output_tokens_per_s_per_gpu = 0;
  double requests_per_s = 0;       // all replicas
  double speedup = 0;              // base TPOT / speculative TPOT
};

// `base` is evaluate_inference(target, plan) (its memory budget is reused); `draft` is the
// draft's context on the same GPU, engine and system. Infeasible plans come back as values.
SpecDecodeEstimate estimate_spec_decode(const InferContext& target, const InferContext& draft, const InferPlan& plan,
                                        const InferEstimate& base, const SpecDecodeInput& in);

// The MTP module of `model` as a model of its own: mtp_layers transformer blocks (MoE when the
// model is), the same embedding and head. Used to build the draft context of --spec-draft mtp.
ModelSpec mtp_draft_model(const ModelSpec& model);

}  // namespace gpuplan
