// `gpuplan tco` as a library call: owning GPUs for N years (servers, fat-tree switches, power,
// operations) against renting the same GPUs, and the break-even use in hours per day.
// Formulas: docs/model/economics.md (Lenovo LP2225's scenario); the arithmetic is econ/tco.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "econ/figures.h"
#include "econ/tco.h"

namespace gpuplan {

// One field per CLI flag; nullopt or empty when not given (the catalog's figure applies).
struct TcoRequest {
  std::string gpu;                           // --gpu, required
  std::optional<int> gpus;                   // --gpus (rounded up to whole nodes)
  std::string system;                        // --system
  std::optional<double> years;               // --years (default 5)
  std::optional<double> capex;               // --capex, USD for the whole cluster
  std::optional<double> power_kw;            // --power-kw, the whole cluster
  std::optional<double> pue;                 // --pue
  std::optional<double> usd_per_kwh;         // --usd-per-kwh
  std::optional<double> ops_usd_per_year;    // --ops-usd-per-year
  std::optional<double> cloud_usd_per_hour;  // --cloud-usd-per-hour
  std::string provider;                      // --provider
  bool all = false;                          // --all: historical prices too
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

struct TcoAnswer {
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
  std::vector<BreakEvenRow> rows;  // dearest cloud rate first
  std::vector<std::string> notes;
};

// Throws Error for bad input, naming the flag, the value and the fix.
TcoAnswer answer_tco(const Catalog& catalog, const TcoRequest& request);

}  // namespace gpuplan
