// recommend --serve: which GPU, how many, and which cloud offer for a serving target. For every
// catalog GPU with a system and a current on-demand offer, infer-search finds the best serving
// plan (TP/PP/EP, precision, concurrency; with a request rate, the fewest GPUs that serve it)
// within the TTFT/TPOT targets; each plan is priced per offer and the points are reduced to the
// Pareto front of cost vs per-user speed (TPOT). Reasons follow the seed's order: memory fit
// first, then bandwidth vs compute, then price.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "infer/search.h"

namespace gpuplan {

struct ServeRecommendOptions {
  std::int64_t input_len = 1024;
  std::int64_t output_len = 256;
  double rate_rps = 0;   // requests/s to serve; 0 = one replica, ranked by cost per token
  double ttft_s = 0;     // 0 = no target
  double tpot_s = 0;     // 0 = no target
  int gpus_max = 8;      // GPUs of one replica (tp × pp) at most
  std::string engine = "vllm";
  std::vector<std::string> providers;  // empty = all
  std::vector<Precision> weights;      // empty = the search's defaults per GPU
};

struct ServePoint {
  const Gpu* gpu = nullptr;
  const System* system = nullptr;  // may be null (PCIe cards: a PCIe ring is modelled)
  InferPlan plan;
  InferEstimate estimate;
  const CloudOffer* offer = nullptr;
  int gpus = 0;                        // tp × pp × replicas
  double usd_per_hour = 0;             // gpus × $/GPU-hour
  double usd_per_million_tokens = 0;   // output tokens
  std::string reason;
};

struct ServeRecommendResult {
  // Pareto front of (cost, TPOT): cheapest first, each point faster per user than every
  // cheaper one. Cost is $/hour with a rate (the fleet that serves it), else $ per million
  // output tokens.
  std::vector<ServePoint> front;
  ServePoint pick;  // the cheapest point that meets the targets
  bool have_pick = false;
  int searched = 0;          // GPUs searched
  long long evaluated = 0;   // serving plans evaluated over all GPUs
  int points = 0;            // priced (GPU, offer) points
  std::vector<std::string> notes;  // GPUs skipped or with no plan meeting the targets, and why
  double elapsed_s = 0;
};

// Throws Error for an unknown provider (naming the known ones), an unknown engine, or lengths < 1.
ServeRecommendResult recommend_serving(const Catalog& catalog, const ModelSpec& model, const ServeRecommendOptions& o);

}  // namespace gpuplan
