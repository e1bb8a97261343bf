// `gpuplan energy` as a library call: the energy, CO2 and electricity bill of running GPUs for
// a while, every figure either given or a dated catalog default. Formula: econ/energy.h.
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "econ/energy.h"
#include "econ/figures.h"

namespace gpuplan {

// One field per CLI flag; nullopt when not given (the catalog's figure applies).
struct EnergyRequest {
  std::string gpu;                       // --gpu, required
  int gpus = 0;                          // --gpus, required (at least 1)
  std::optional<double> hours;           // --hours  } exactly one
  std::optional<double> days;            // --days   }
  std::optional<double> utilization;     // --utilization, (0, 1]; default 1
  std::optional<double> watts_per_gpu;   // --watts-per-gpu
  std::optional<double> pue;             // --pue
  std::optional<double> kg_co2_per_kwh;  // --kg-co2-per-kwh
  std::optional<double> usd_per_kwh;     // --usd-per-kwh
};

struct EnergyAnswer {
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

// Throws Error for bad input, naming the flag, the value and the fix.
EnergyAnswer answer_energy(const Catalog& catalog, const EnergyRequest& request);

}  // namespace gpuplan
