// Text and JSON for `gpuplan cost`, `gpuplan tco` and `gpuplan energy`. The CLI resolves
// every figure (catalog default or command-line override) into these structs, each with the
// words saying where it came from; the builders only format.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "econ/energy.h"
#include "econ/run_cost.h"
#include "econ/tco.h"

namespace gpuplan {

// A figure and where it came from ("data/econ/tco-inputs.toml [pue], Uptime 2025" or "--pue").
struct SourcedFigure {
  double value = 0;
  std::string from;
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

struct CostReport {
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
  std::vector<CostRow> rows;
  std::vector<std::string> notes;
};

struct BreakEvenRow {
  std::string provider;
  std::string instance;
  std::string pricing;
  std::string price_date;
  bool historical = false;
  double usd_per_hour = 0;    // for the cluster's GPUs
  double cloud_usd_24x7 = 0;  // renting around the clock for the period
  double break_even_hours_per_day = 0;
};

struct TcoReport {
  std::string gpu;
  std::string system;  // "" when none
  int gpus = 0;
  int nodes = 0;
  int switches = 0;
  SourcedFigure years;
  SourcedFigure server_usd;   // per node
  SourcedFigure switch_usd;   // per switch
  SourcedFigure capex_usd;    // total
  SourcedFigure it_power_kw;  // total
  SourcedFigure pue;
  SourcedFigure usd_per_kwh;
  SourcedFigure ops_usd_per_year;
  OnPremTco on_prem;
  std::vector<BreakEvenRow> rows;
  std::vector<std::string> notes;
};

struct EnergyReport {
  std::string gpu;
  int gpus = 0;
  double hours = 0;
  SourcedFigure watts_per_gpu;
  SourcedFigure utilization;
  SourcedFigure pue;
  SourcedFigure kg_co2_per_kwh;
  SourcedFigure usd_per_kwh;
  Energy energy;
};

std::string cost_text(const CostReport& r);
nlohmann::ordered_json cost_json(const CostReport& r);
std::string tco_text(const TcoReport& r);
nlohmann::ordered_json tco_json(const TcoReport& r);
std::string energy_text(const EnergyReport& r);
nlohmann::ordered_json energy_json(const EnergyReport& r);

}  // namespace gpuplan
