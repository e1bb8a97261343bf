// infer-search: the best serving plan for one model on one GPU kind. Enumerates TP, PP, EP and,
// for MoE models, attention DP (valid divisors), weight and KV precision and the closed-loop concurrency up to the memory
// limit; maximises output tokens/s per GPU (or per dollar) under optional TTFT/TPOT targets, or
// with a request rate the fewest GPUs that serve it. Never throws on an infeasible space: the
// result says what to relax.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/progress.h"
#include "infer/evaluate.h"
#include "infer/sim_answer.h"

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
  // 0: the targets apply to the closed-form means. 50..100: to that percentile of the
  // scheduler simulation at the plan's concurrency (infer/search_sim.h); the plans whose
  // closed-form means meet the targets are simulated best first until one meets them there.
  double slo_percentile = 0;
  std::vector<Precision> weights;  // empty = bf16, fp8 (GPU has FP8 tensor cores), int4
  std::vector<Precision> kvs;      // empty = bf16, fp8
  const ProgressSink* progress = nullptr;  // plans evaluated of all (core/progress.h); null = none
};

// A plan on the search's Pareto front (one replica): no other plan that fits gives more output
// tokens/s per GPU and more tokens/s per user (1 / TPOT) at once.
struct InferFrontPoint {
  InferPlan plan;  // mode = concurrency, load = requests in flight, replicas = 1
  double output_tokens_per_s_per_gpu = 0;
  double tpot_s = 0;
  double ttft_s = 0;
  bool meets_targets = false;
  double tokens_per_s_per_user() const { return tpot_s > 0 ? 1 / tpot_s : 0; }
};

struct InferSearchResult {
  bool found = false;
  std::string reason;      // when !found: what to relax
  InferPlan plan;          // mode = concurrency, load = the chosen concurrency per replica
  InferEstimate estimate;  // of the plan (all replicas)
  double score = 0;        // output tokens/s per GPU, or per USD/hour when objective = cost
  long long evaluated = 0; // plans evaluated
  long long feasible = 0;  // plans that fit
  long long meeting = 0;   // plans that fit and meet the targets (closed form)
  long long simulated = 0; // plans simulated (slo_percentile > 0)
  long long bounded = 0;   // candidates ruled out unsimulated: TTFT lower bound past the target (search_sim.h)
  // slo_percentile > 0: the chosen plan's simulation (one replica, closed loop at its
  // concurrency); its TTFT/TPOT at the percentile met the targets.
  std::optional<SimAnswer> simulation;
  // Every plan that fits, kept where no other dominates it: fastest per user first. What the
  // serving report's Pareto chart draws (AIConfigurator's throughput per GPU against per user).
  std::vector<InferFrontPoint> front;
};

// Adds `p` to `front` unless a point there dominates it (as fast per GPU and per user, one
// strictly faster), dropping the points `p` dominates; keeps `front` sorted by TPOT.
void add_to_front(std::vector<InferFrontPoint>& front, const InferFrontPoint& p);

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
