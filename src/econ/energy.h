// Energy and CO2 of running GPUs: power draw × utilisation × hours × PUE, times the grid's
// carbon intensity. Pure functions; formulas in docs/model/economics.md.
#pragma once

namespace gpuplan {

struct EnergyInputs {
  int gpus = 0;
  double hours = 0;
  double watts_per_gpu = 0;  // at full load (a node's power share per GPU, or the GPU's TDP)
  double utilization = 1;    // average fraction of that draw, in (0, 1]
  double pue = 1;
  double kg_co2_per_kwh = 0;
  double usd_per_kwh = 0;
};

struct Energy {
  double it_kwh = 0;        // at the servers
  double facility_kwh = 0;  // × PUE: cooling and power delivery included
  double kg_co2 = 0;
  double usd = 0;
  double avg_facility_kw = 0;
};

// Power is taken as linear in utilisation from zero; idle GPUs still draw some power, so at
// low utilisation this underestimates (docs/model/economics.md).
Energy run_energy(const EnergyInputs& in);

}  // namespace gpuplan
