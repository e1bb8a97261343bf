// `gpuplan cost` as a library call: what a run costs on each selected cloud offer (or at a
// price given on the line), with whole instances billed, spot checkpoint/restart overhead, and
// the duration from 6·N·D when the run is given as a model and a token count.
// Formulas: docs/model/economics.md; the arithmetic is econ/run_cost.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "econ/figures.h"
#include "econ/run_cost.h"

namespace gpuplan {

// One field per CLI flag; nullopt or empty when not given.
struct CostRequest {
  std::string gpu;                              // --gpu (id or alias), required
  std::optional<double> gpu_hours;              // --gpu-hours: the run as GPU-hours (billed per GPU-hour)
  std::optional<int> gpus;                      // --gpus
  std::optional<double> days;                   // --days
  std::optional<double> hours;                  // --hours
  std::string model;                            // --model (zoo id): duration from 6·N·D
  std::string tokens;                           // --tokens ("100B")
  double mfu = 0.4;                             // --mfu
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

// Duration from 6·N·D when the run is given as a model and a token count.
struct ModelDuration {
  std::string model;
  double params = 0;  // active parameters per token
  double tokens = 0;
  double flops = 0;
  double peak_flops_per_s = 0;  // one GPU, dense BF16
  double mfu = 0;
  double hours_at_full_mfu = 0;
  double hours_at_mfu = 0;       // at `mfu`
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
