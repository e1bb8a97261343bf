// Serving under load, step by step: an event-driven simulation of the engine's scheduler
// (docs/model/simulation.md). Requests arrive (sim_workload.h), wait, are admitted while the
// engine's caps and its KV-cache blocks allow, have their prompts prefilled whole or in chunks
// under the step's token budget, decode one token per step, are preempted (recomputed) when a
// pool without reservations runs out of blocks, and finish. Each step's time is the analytic
// step model's (step.h) for that step's batch, memoized by the batch's composition, so 10,000
// requests simulate in about 30 ms of CPU (bench/sim_bench.cpp; runs of pure decode steps are
// applied at once, sim_engine.cpp decode_stretch). Answers latency distributions
// (TTFT, TPOT, ITL, end to end), throughput and goodput under an SLO.
#pragma once

#include <cstdint>
#include <vector>

#include "catalog/engine.h"
#include "infer/infer_context.h"
#include "infer/infer_plan.h"
#include "infer/memory_budget.h"
#include "infer/sim_workload.h"

namespace gpuplan {

class SimStepMemo;

// The scheduler of one replica, from the engine's data (data/engines/*.toml [scheduler]).
struct SimScheduler {
  double max_num_seqs = 256;      // sequences running at once (all attention-DP ranks)
  double token_budget = 8192;     // tokens per step: decodes + prompt chunks (all ranks)
  bool chunked_prefill = true;    // a prompt may be split over steps
  bool prefill_first = false;     // steps of prompts only while prompts can be admitted
  bool reserve_full_sequence = false;  // admit only with blocks for prompt + output (no preemption)
  std::vector<double> cuda_graph_batch_sizes;  // pure-decode steps padded up to these
  BatchWait batch_wait;           // new prompts held while others decode (Engine::batch_wait)
  double kv_blocks = 0;           // blocks the replica's pool holds
  double block_tokens = 16;
  double state_blocks_per_seq = 0;  // recurrent (Mamba) state of a sequence, in blocks
  double request_overhead_s = 0;  // outside the engine: API server, tokenisation (engine data)
};

// The scheduler of `plan` on ctx.engine with the KV pool `memory` sets (memory.fits).
SimScheduler sim_scheduler_of(const InferContext& ctx, const InferPlan& plan, const InferMemory& memory);

// Goodput targets (benchmark_serving --goodput): a request is good when it meets every one
// given (0 = none).
struct SimSlo {
  double ttft_s = 0;
  double tpot_s = 0;
  double percentile = 99;  // the percentile SimResult::ttft_at_percentile_s / tpot_at_percentile_s report
};

struct SimPercentiles {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
};

struct SimResult {
  int requests = 0;            // measured (sent minus warm-up)
  SimPercentiles ttft_s;       // first token − send, the request overhead included
  SimPercentiles tpot_s;       // per request: (last − first token) / (output − 1), outputs > 1
  SimPercentiles itl_s;        // every gap between consecutive tokens of a request
  SimPercentiles e2e_s;        // last token − send
  double duration_s = 0;       // first measured send to last measured token
  double output_tokens_per_s = 0;
  double requests_per_s = 0;
  double goodput_requests_per_s = 0;  // requests meeting the SLO per second (all when none given)
  double mean_running = 0;     // time-weighted sequences in the running batch
  int peak_running = 0;
  int preemptions = 0;         // sequences evicted for KV blocks (recomputed later)
  int steps = 0;
  int step_costs = 0;          // distinct batch compositions costed (the memo's size)
  double busy_s = 0;           // time the engine was running steps
  double ttft_at_percentile_s = 0;  // TTFT and TPOT at SimSlo::percentile
  double tpot_at_percentile_s = 0;
};

// Simulates `workload` on one replica of `plan`. `memo` (optional) keeps step costs across
// calls on the same context and plan (a rate search); null = a memo for this call.
SimResult simulate_serving(const InferContext& ctx, const InferPlan& plan, const SimScheduler& sched,
                           const SimWorkload& workload, const SimSlo& slo = {}, SimStepMemo* memo = nullptr);

// Step times memoized by batch composition: (decodes after CUDA-graph padding, decode context
// on a grid, prompt tokens, prompt length). The decode context varies every step, so it is
// costed at the two grid points around it (a spacing of 1/32 of its power of two) and
// interpolated: the step model is linear in the context between them but for block rounding.
// A step is kept without the engine's per-step overhead, which is added back (as step.cpp adds
// it, last) from `ctx`'s engine at every lookup: the same bits as costing the step with it, and a
// memo that stays valid while only that overhead changes (validate's fit of it re-simulates the
// same rows 161 times). Anything else of `ctx` or `plan` changed makes the memo stale.
class SimStepMemo {
 public:
  SimStepMemo(const InferContext& ctx, const InferPlan& plan);
  // Seconds of one engine step (all pipeline stages) carrying this batch.
  double step_s(double decodes, double decode_context, double prefill_tokens, double prefill_span);
  std::size_t size() const { return size_; }

 private:
  struct Key {
    std::int32_t decodes, context, prefill, span;
    bool operator==(const Key&) const = default;
  };
  static std::uint64_t hash(const Key& k);
  // One stage's StepCost parts: linear + attention + elementwise + comm, in step.cpp's order,
  // and the per-layer fixed costs (step.cpp: overhead = step overhead + layers × layer overhead).
  struct Cost {
    double before_overhead = 0;
    double layer_overhead = 0;
    double host = 0;  // the executor's host time (step.h StepCost::host_s), overlapped with the rest
  };
  double cost(const Key& k);
  Cost table_cost(const Key& k);  // the table's entry, costed on first use
  const InferContext* ctx_;   // read at every lookup for the engine's step overhead
  const InferPlan* plan_;
  Engine engine0_;            // ctx's engine without its step overhead
  InferContext ctx0_;         // ctx on engine0_: what the steps are costed with
  // The table: open addressing with linear probing, a power-of-two number of slots at most half
  // full, an empty slot's decodes −1 (a step has 0 or more). One cache line a look-up where a
  // node-based map took two or three (15,000 entries in a 10,000-request run).
  struct Slot {
    Key key{-1, -1, -1, -1};
    Cost cost;
  };
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  int shift_ = 64;  // 64 − log2(slots)
  // The entries of the last two look-ups: a run of decode steps asks for the same two grid
  // points step after step (the context moves by a token a step, the grid by 16 or more), so
  // most look-ups end here instead of in the table (copies: a copied memo keeps its own).
  Key recent_key_[2] = {{-1, -1, -1, -1}, {-1, -1, -1, -1}};
  Cost recent_[2];
};

}  // namespace gpuplan
