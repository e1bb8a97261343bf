// Serving under load: a static batch started together, and continuous (in-flight) batching
// in steady state for a closed loop with C requests in flight, where every step mixes prompt
// chunks with decodes (Yu et al. 2022 Orca; Agrawal et al. 2024 Sarathi-Serve). Formulas and
// sources: docs/model/inference.md §5.
#pragma once

#include "infer/memory_budget.h"
#include "infer/step.h"

namespace gpuplan {

struct ServingPoint {
  double in_flight = 0;       // requests in the closed loop (or the batch)
  double running = 0;         // sequences the engine runs at once (≤ memory and scheduler caps)
  double ttft_s = 0;          // time to first token, queueing included
  double queue_s = 0;         // part of TTFT spent waiting for KV memory
  double steady_ttft_s = 0;   // TTFT of a request arriving in steady state (no queueing)
  double first_wave_ttft_s = 0;  // mean TTFT of the first C requests, all started at t = 0 (informative)
  double batch_wait_s = 0;    // part of steady_ttft_s a new prompt is held by batch waiting (infer/batch_wait.h)
  double tpot_s = 0;          // time per output token after the first
  double output_tokens_per_s = 0;  // one replica
  double requests_per_s = 0;       // one replica
  StepCost step;              // the steady-state step of one stage
  StepCost prefill;           // the step that carries a new request's prompt
};

// Whole prompts of `input_len` tokens refilled together in one step of a closed loop with
// `micro` sequences per pipeline micro-batch on an engine without chunked prefill: the cohort
// the first wave is admitted in and that persists (equal lengths finish together). ≥ 1.
// Attention DP: `micro` is split over `attention_dp` ranks, each with its own budget.
double closed_loop_cohort(const Engine& e, double input_len, double micro, int attention_dp = 1);

// B requests started together: one prefill of all prompts, then O − 1 decode steps.
ServingPoint static_batch(const InferContext& ctx, const InferPlan& plan, double batch);

// Closed loop with `in_flight` requests; `max_running` is what memory and the scheduler allow.
ServingPoint continuous(const InferContext& ctx, const InferPlan& plan, double in_flight, double max_running);

// Closed loop as fixed-concurrency benchmarks run it: engines without chunked prefill keep
// requests in the groups their prompts were admitted in (all of them in lockstep when every
// prompt fits one step's token budget); chunked-prefill engines spread them (continuous).
ServingPoint closed_loop(const InferContext& ctx, const InferPlan& plan, double in_flight, double max_running);

// The running batch that maximises output tokens/s within `max_running` (offline serving).
ServingPoint max_throughput(const InferContext& ctx, const InferPlan& plan, double max_running);

}  // namespace gpuplan
