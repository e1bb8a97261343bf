// The serving constants `validate inference` fits, each only on the rows where it is visible
// (docs/validation.md, "Inference"), so that held-out folds can refit them without the rows
// they score:
//   step_overhead_us    per engine entry, on its closed-loop TPOT rows at concurrency <= 8
//                       (its Hopper ones when there are any, see below):
//                       there a decode step streams the weights once for a handful of
//                       sequences, so the fixed host/launch time per step is a visible share;
//                       on max-batch rows it is invisible (amortised over hundreds of sequences).
//   request_overhead_us per engine entry, on its closed-loop TTFT rows at concurrency <= 8
//                       (Hopper first, likewise):
//                       the fixed per-request cost (HTTP, tokenisation, scheduling hand-off)
//                       before the first token, next to one prefill.
//   serving gemm_scale  per (architecture family other than Hopper, weight precision), on that
//                       family's TTFT rows at concurrency <= 8 and offline throughput rows:
//                       prefill and large-batch steps are where GEMM rate shows (not TTFT rows
//                       whose launch held prompts by batch waiting: decode steps set those).
//   serving bw_scale    per (family other than Hopper, weight precision), on its TPOT rows at
//                       concurrency <= 8: small-batch decode streams the weights.
// The per-engine constants are fitted on the engine's Hopper rows when it has any (the
// reference family of the engine fractions), so that a Blackwell FP4 TPOT row is explained by
// Blackwell's FP4 factor, not folded into the engine's step overhead; an engine with no Hopper
// row in the fold shares its rows with the family factors, and then all are fitted together by
// coordinate descent (two passes over the four, each a 1-D grid search).
// An engine with no such rows keeps its catalog value (the row count says 0); a family scale
// with no rows is 1 (as Hopper), never the catalog value, which was fitted on every row and
// would leak a held-out GPU's rows back into its fold.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "infer/evaluate.h"
#include "infer/infer_context.h"
#include "infer/infer_plan.h"
#include "infer/sim_engine.h"

namespace gpuplan {

// One row of an inference-runs.csv file, resolved against the catalog.
struct InferCase {
  std::string id, source, model_name, gpu_name, engine_name, mode, metric, precision;
  std::string family;  // the GPU's efficiency entry id ("hopper", "blackwell"; "" = none or the fallback)
  const ModelSpec* model = nullptr;
  const Gpu* gpu = nullptr;
  const Engine* engine = nullptr;  // the catalog entry of the row's engine (and version)
  InferPlan plan;
  double concurrency = 0;  // 0 = offline
  double measured = 0;
  // max_rate_within_slo rows: the limits at the percentile (0 = none) the rate must meet.
  double slo_ttft_ms = 0;
  double slo_tpot_ms = 0;
  double slo_percentile = 99;
  // Batch waiting the row's benchmark launch set (Engine::benchmark_batch_wait, where it matches
  // the row's lengths and TP): predicted with a copy of the engine that waits so.
  BatchWait launch_wait;
  // Offline rows of a source whose benchmark sent a fixed number of requests per run
  // (data/validation/inference-sources.toml `benchmark_requests`; 0 = no rule): the run holds at
  // most that many sequences at once, predicted with a copy of the engine capped there.
  double benchmark_requests = 0;
  // Rows of a source whose benchmark launch captured CUDA graphs at these batch sizes with padding
  // on (inference-sources.toml `cuda_graph_batch_sizes`; empty = the engine's own): predicted with
  // a copy of the engine that pads so.
  std::vector<double> cuda_graph_batch_sizes;
  // offline_max_throughput rows: the requests the benchmark's dataset held, all queued at t = 0
  // (`num_requests` column; 0 = not stated): the closed form's steady state is scaled by the
  // finite run's ramp-up and drain (infer/finite_run.h).
  int num_requests = 0;
  bool max_rate_within_slo() const { return mode == "max_rate_within_slo"; }
};

struct InferFittedEngine {
  std::string engine;  // engine id
  double step_overhead_s = 0;
  int step_rows = 0;  // rows it was fitted on; 0 = the catalog value kept
  double request_overhead_s = 0;
  int request_rows = 0;
};

struct InferFittedScale {
  std::string family;  // efficiency entry id ("blackwell", "ampere", ...)
  Precision precision = Precision::bf16;  // weight precision
  double gemm_scale = 1;
  int gemm_rows = 0;
  double bw_scale = 1;
  int bw_rows = 0;
};

struct InferFit {
  std::vector<InferFittedEngine> engines;
  std::vector<InferFittedScale> scales;
};

// What a prediction uses instead of the catalog: refit engine copies and family scales.
struct InferOverrides {
  std::vector<std::pair<const Engine*, Engine>> engines;  // catalog entry → refit copy
  std::vector<InferFittedScale> scales;                   // replace the whole family table
  bool replace_scales = false;  // true: families not listed use 1 (folds); false: the catalog's
};

// The row's engine: its full name first ("tensorrt-llm 1.0" → the entry with that alias),
// else its first word ("vllm 0.9" → vllm). Throws Error naming the cell when neither is known.
const Engine& resolve_row_engine(const Catalog& catalog, const std::string& text, const std::string& where);

// Every row of the file; throws Error naming file, line and column for a bad cell.
std::vector<InferCase> read_inference_cases(const CsvTable& csv, const Catalog& catalog);

// Predictions with the contexts built once per (model, GPU, engine) and any engine entry
// swapped in (a refit copy of the catalog's).
class InferPredictor {
 public:
  // `simulate`: closed-loop TTFT/TPOT from the scheduler simulation (mean over 10 requests per
  // client, the benchmarks' protocol) instead of the closed-form rules.
  explicit InferPredictor(const Catalog& catalog, bool simulate = false) : catalog_(&catalog), simulate_(simulate) {}
  // The case's metric predicted with the overrides (null = the catalog); 0 with `note` set when
  // the plan is infeasible or the metric unknown.
  // `finite_run_factor` (optional): the factor the row's finite request count applied (1 = none).
  double predict(const InferCase& c, const InferOverrides* overrides = nullptr, std::string* note = nullptr,
                 double* finite_run_factor = nullptr);

 private:
  const Catalog* catalog_;
  bool simulate_ = false;
  // Simulated predictions by (case, step overhead, request overhead, GEMM and bandwidth
  // scales): the only inputs a fit changes, so folds that refit the same constants on the same
  // rows (every fold leaving out a GPU or source without closed-loop rows) simulate once.
  std::map<std::tuple<const InferCase*, double, double, double, double>, double> simulated_;
  // The finite-run factors of offline rows with a request count, by the same key.
  std::map<std::tuple<const InferCase*, double, double, double, double>, double> finite_runs_;
  // The step costs of each case's last simulation, kept while the next one costs its steps with
  // the same inputs: the grid searches re-simulate a case 201 times with only the request
  // overhead changed (when requests arrive, not what a step costs) and 161 times with only the
  // step overhead changed (which SimStepMemo adds at every lookup).
  struct StepMemoSlot {
    double layer_overhead_s = 0;
    PerPrecision gemm{}, bw{};
    std::unique_ptr<InferPlan> plan;  // the memo's plan (SimStepMemo keeps a pointer to it)
    std::unique_ptr<SimStepMemo> memo;
  };
  std::map<const InferCase*, StepMemoSlot> step_memos_;
  SimStepMemo& step_memo(const InferCase& c, const InferContext& ctx);
  std::map<std::tuple<const ModelSpec*, const Gpu*, const Engine*>, std::unique_ptr<InferContext>> contexts_;
};

// The case's TTFT or TPOT (ms) from the scheduler simulation, or, for a max_rate_within_slo row,
// the output tokens/s at the highest Poisson rate meeting its limits (0 = none does). `memo`
// (optional, closed-loop rows) holds step costs of the case's plan on `ctx` as it is now.
double predict_simulated(const InferCase& c, const InferContext& ctx, const InferEstimate& e,
                         SimStepMemo* memo = nullptr);

// The constants above fitted on `rows` (each by a grid search minimising the median
// |log(predicted / measured)|): one entry per engine entry and per (non-Hopper family, weight
// precision) that appears in `rows`.
InferFit fit_inference_constants(const std::vector<const InferCase*>& rows, InferPredictor& predictor);

// The row-weighted geometric mean of `family`'s fitted GEMM factors over the precisions with
// GEMM rows (1 when none): what a precision of that family without rows uses.
double pooled_gemm_scale(const std::vector<InferFittedScale>& scales, const std::string& family);

// The overrides that apply `fit` (families not in it at 1) to the engines of `cases`.
InferOverrides overrides_of(const InferFit& fit, const std::vector<InferCase>& cases);

// "offline", "c<=8", "c9-32" or "c>32" ("slo" for max_rate_within_slo rows, concurrency < 0).
std::string concurrency_band(double concurrency);

}  // namespace gpuplan
