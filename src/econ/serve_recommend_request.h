// `gpuplan recommend --serve` as a library call: which GPU, how many, and which cloud offer for a serving target. For every
// catalog GPU with a system and a current on-demand offer, infer-search finds the best serving
// plan (TP/PP/EP, precision, concurrency; with a request rate, the fewest GPUs that serve it)
// within the TTFT/TPOT targets; each plan is priced per offer and the points are reduced to the
// Pareto front of cost vs per-user speed (TPOT). Reasons follow the seed's order: memory fit
// first, then bandwidth vs compute, then price.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/progress.h"
#include "infer/search.h"

namespace gpuplan {

// One field per CLI flag; nullopt for a target not given.
struct ServeRecommendRequest {
  std::string model;                    // --model (the CLI resolves a config.json path too)
  std::int64_t input_len = 1024;        // --input-len: prompt tokens per request
  std::int64_t output_len = 256;        // --output-len: generated tokens per request
  std::optional<double> rate_rps;       // --rate: requests/s to serve; none = one replica, per-token cost
  std::optional<double> ttft_ms;        // --ttft-ms target
  std::optional<double> tpot_ms;        // --tpot-ms target
  int gpus_max = 8;                     // --gpus-max: GPUs of one replica (tp × pp) at most
  std::string engine = "vllm";          // --engine
  std::vector<std::string> providers;   // --providers: empty = all
  std::vector<Precision> weights;       // --weights: empty = the search's defaults per GPU
  ProgressSink progress;                // not a field: GPUs searched, for the CLI's stderr (core/progress.h)
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

struct ServeRecommendAnswer {
  const ModelSpec* model = nullptr;  // the resolved model (owned by the catalog or the caller)
  ServeRecommendRequest request;     // as asked, for the report
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

// Throws Error for bad input, naming the flag, the value and the fix (an unknown provider lists
// the known ones, an unknown engine the known engines). The first form resolves request.model in
// the catalog's zoo; the second takes a model the caller resolved, which must outlive the answer.
ServeRecommendAnswer answer_serve_recommend(const Catalog& catalog, const ServeRecommendRequest& request);
ServeRecommendAnswer answer_serve_recommend(const Catalog& catalog, const ModelSpec& model,
                                            const ServeRecommendRequest& request);

}  // namespace gpuplan
