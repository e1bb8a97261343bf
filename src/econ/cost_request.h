// `gpuplan cost` as a library call: what a run costs on each selected cloud offer (or at a
// price given on the line), with whole instances billed, spot checkpoint/restart overhead, and
// the duration of a run given as a model and a token count from the training evaluator's best
// plan (the same search `gpuplan search` runs), or from 6·N·D at --mfu with --rule-of-thumb.
// Formulas: docs/model/economics.md; the arithmetic is econ/run_cost.h.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "econ/figures.h"
#include "econ/run_cost.h"
#include "search/search_request.h"

namespace gpuplan {

// One field per CLI flag; nullopt or empty when not given.
struct CostRequest {
  std::string gpu;                              // --gpu (id or alias), required
  std::optional<double> gpu_hours;              // --gpu-hours: the run as GPU-hours (billed per GPU-hour)
  std::optional<int> gpus;                      // --gpus
  std::optional<double> days;                   // --days
  std::optional<double> hours;                  // --hours
  std::string model;                            // --model (zoo id or config.json)
  std::string tokens;                           // --tokens ("100B")
  bool rule_of_thumb = false;                   // --rule-of-thumb: 6·N·D at --mfu, no plan search
  double mfu = 0.4;                             // --mfu (with --rule-of-thumb)
  std::string system;                           // --system (the search's; empty = the GPU's default)
  std::optional<int> seq_len;                   // --seq-len (the search's; unset = the model's context)
  std::optional<int> global_batch;              // --global-batch in sequences; unset = kDefaultBatchTokens
                                                // worth, rounded up to a multiple of --gpus
  std::string provider;                         // --provider
  std::string instance;                         // --instance
  bool all = false;                             // --all: historical prices too
  std::optional<double> usd_per_hour;           // --usd-per-hour (all the run's GPUs)
  std::optional<double> usd_per_gpu_hour;       // --usd-per-gpu-hour
  std::optional<double> spot_overhead;          // --spot-overhead (fraction of wall time)
  std::optional<double> spot_discount;          // --spot-discount
  std::optional<double> interruptions_per_day;  // --interruptions-per-day
  std::optional<double> restart_hours;          // --restart-hours
  std::optional<double> checkpoint_hours;       // --checkpoint-hours
};

struct CostRow {
  std::string provider;
  std::string instance;
  std::string pricing;     // on-demand, spot, reserved, ..., "spot (derived)"
  std::string price_date;  // "" for a price typed on the command line
  bool price_date_estimated = false;
  bool historical = false;
  int gpus_per_instance = 0;  // 0: priced per GPU-hour
  double usd_per_gpu_hour = 0;
  RunCost cost;
  std::string source;
};

// The batch a `cost` search assumes when none is given: 2^22 tokens (4M, Llama 3's 8k-context
// batch), in sequences of the run's length, rounded up to a multiple of the GPU count.
inline constexpr double kDefaultBatchTokens = 4194304;

// The run's duration when it is given as a model and a token count.
struct ModelDuration {
  std::string method;  // "search": the evaluator's best plan; "6ND": the rule of thumb at `mfu`
  // The search behind "search" (its best plan is result.top.front()); null for 6ND.
  std::shared_ptr<const SearchAnswer> search;
  int global_batch = 0;  // sequences per step (search)
  int seq_len = 0;
  double step_time_s = 0;    // the best plan's step (search)
  double tokens_per_s = 0;   // the best plan's throughput, all GPUs (search)
  std::string model;
  double params = 0;  // active parameters per token
  double tokens = 0;
  double flops = 0;
  double peak_flops_per_s = 0;  // one GPU, dense BF16
  double mfu = 0;                // the best plan's MFU (search), or --mfu (6ND)
  double hours_at_full_mfu = 0;
  double hours_at_mfu = 0;       // the run's duration: at `mfu`
  double hours_at_half_mfu = 0;  // at 0.5, for comparison
};

struct CostAnswer {
  std::string gpu;
  int gpus = 0;           // 0 when the run is given only in GPU-hours, or per offer (--hours alone)
  double wall_hours = 0;  // 0 when the run is given only in GPU-hours
  double gpu_hours = 0;   // gpus × wall hours, or as given
  bool has_model = false;
  ModelDuration model;
  SpotModel spot;
  std::string spot_from;  // where the spot model (or --spot-overhead) came from
  bool spot_overhead_fixed = false;
  double spot_overhead = 0;
  std::vector<CostRow> rows;  // cheapest first
  std::vector<std::string> notes;
};

// Throws Error for bad input, naming the flag, the value and the fix.
CostAnswer answer_cost(const Catalog& catalog, const CostRequest& request);

}  // namespace gpuplan
