// Disaggregated prefill/decode serving: prompts run on a prefill pool, their KV cache moves over
// the fabric to a decode pool that only decodes (DistServe, Zhong et al. OSDI 2024; Splitwise,
// Patel et al. ISCA 2024; NVIDIA Dynamo's disaggregated serving). Each pool has its own TP; the
// service's rate is the slower pool's, the balanced ratio of prefill to decode GPUs is the one
// where both pools serve the same requests/s. Formulas: docs/model/serving-features.md §3.
#pragma once

#include <string>

#include "infer/infer_context.h"
#include "infer/infer_plan.h"

namespace gpuplan {

struct DisaggInput {
  int prefill_gpus = 1;
  int decode_gpus = 1;
  int prefill_tp = 1;
  int decode_tp = 1;
};

struct DisaggEstimate {
  bool feasible = false;
  std::string reason;
  int prefill_replicas = 0;
  int decode_replicas = 0;
  // Prefill pool: whole prompts, as many as one step's token budget holds.
  double prompts_per_prefill_step = 0;
  double prefill_step_s = 0;
  double prefill_latency_s = 0;        // a prompt's prefill (its step, or its chunks when it exceeds the budget)
  double prefill_requests_per_s = 0;   // the pool
  // KV transfer, prefill pool → decode pool, after the prefill step.
  double kv_bytes_per_request = 0;     // the prompt's KV, all layers, all ranks
  double kv_bytes_per_gpu = 0;         // per prefill rank (each sends its share in parallel)
  double kv_transfer_s = 0;            // one step's prompts, one prefill rank's link
  std::string fabric;                  // "scale-up domain" | "network" | "PCIe"
  double transfer_requests_per_s = 0;  // the pool's links, when transfers overlap prefill
  // Decode pool: a running batch of decodes only.
  double decode_running = 0;
  std::string decode_limit;            // requested | KV capacity | scheduler max_num_seqs
  double decode_step_s = 0;
  double decode_requests_per_s = 0;    // the pool
  // The service.
  double ttft_s = 0;   // engine per-request cost + prefill + KV transfer (no queueing: no arrival model)
  double tpot_s = 0;
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  std::string bottleneck;              // prefill | decode | KV transfer
  // The pools' GPUs (different types: --disagg-prefill-gpu) and what the service costs at each
  // GPU's cheapest on-demand price (catalog clouds); 0 where a pool's GPU has no price.
  std::string prefill_gpu;
  std::string decode_gpu;
  double cost_usd_per_hour = 0;
  double usd_per_million_output_tokens = 0;
  // The balanced split: of the same GPUs (whole replicas of each pool) when both pools have one
  // GPU type; with two types (not interchangeable) the fewest whole prefill replicas that keep up
  // with the given decode pool. And the ideal share of GPUs (of GPU-hours' worth in dollars with
  // two types and both prices, else of GPUs).
  double balanced_prefill_share = 0;   // prefill GPUs / all at equal pool rates
  int balanced_prefill_gpus = 0;
  int balanced_decode_gpus = 0;
  double balanced_requests_per_s = 0;
};

// `plan` gives the precisions, lengths, EP and the decode load (batch / concurrency per decode
// replica, or max-throughput = what memory allows); its tp and replicas are replaced by the pools.
DisaggEstimate estimate_disagg(const InferContext& ctx, const InferPlan& plan, const DisaggInput& in);

// The prefill pool on `prefill_ctx`'s GPU and the decode pool on `decode_ctx`'s (same model and
// engine; Splitwise's heterogeneous pools: prompts where compute is cheap, decodes where memory
// bandwidth is). Two GPU types never share a scale-up domain: the KV moves over the network at
// the slower end's rate.
DisaggEstimate estimate_disagg(const InferContext& prefill_ctx, const InferContext& decode_ctx, const InferPlan& plan,
                               const DisaggInput& in);

}  // namespace gpuplan
