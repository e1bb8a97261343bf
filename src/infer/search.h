// infer-search: the best serving plan for one model on one GPU kind. Enumerates TP, PP, EP and,
// for MoE models, attention DP (valid divisors), weight and KV precision and the closed-loop concurrency up to the memory
// limit; maximises output tokens/s per GPU (or per dollar) under optional TTFT/TPOT targets, or
// with a request rate the fewest GPUs that serve it. Never throws on an infeasible space: the
// result says what to relax.
#pragma once

#include <string>
#include <vector>

#include "infer/evaluate.h"

namespace gpuplan {

enum class InferObjective { throughput, cost };

struct InferSearchSpec {
  int gpus_max = 8;               // GPUs of one replica (tp × pp) at most
  std::int64_t input_len = 1024;
  std::int64_t output_len = 256;
  double ttft_s = 0;              // 0 = no target
  double tpot_s = 0;              // 0 = no target
  double rate_rps = 0;            // requests/s to serve with replicas; 0 = one replica
  InferObjective objective = InferObjective::throughput;
  std::vector<Precision> weights;  // empty = bf16, fp8 (GPU has FP8 tensor cores), int4
  std::vector<Precision> kvs;      // empty = bf16, fp8
};

struct InferSearchResult {
  bool found = false;
  std::string reason;      // when !found: what to relax
  InferPlan plan;          // mode = concurrency, load = the chosen concurrency per replica
  InferEstimate estimate;  // of the plan (all replicas)
  double score = 0;        // output tokens/s per GPU, or per USD/hour when objective = cost
  long long evaluated = 0; // plans evaluated
  long long feasible = 0;  // plans that fit
  long long meeting = 0;   // plans that fit and meet the targets
};

// The precisions the search tries on this GPU by default.
std::vector<Precision> default_search_weights(const Gpu& gpu);

// Score of a feasible estimate under the objective (higher is better); 0 without a price.
double infer_score(const InferContext& ctx, const InferEstimate& e, InferObjective objective);

// Does the estimate meet the spec's targets?
bool meets_targets(const InferSearchSpec& spec, const InferEstimate& e);

// Every plan the search evaluates (replicas = 1), in a fixed order.
std::vector<InferPlan> infer_search_space(const InferContext& ctx, const InferSearchSpec& spec);

InferSearchResult infer_search(const InferContext& ctx, const InferSearchSpec& spec);

}  // namespace gpuplan
