#include "econ/energy.h"

namespace gpuplan {

Energy run_energy(const EnergyInputs& in) {
  Energy e;
  e.it_kwh = in.gpus * in.watts_per_gpu * in.utilization * in.hours / 1000.0;
  e.facility_kwh = e.it_kwh * in.pue;
  e.kg_co2 = e.facility_kwh * in.kg_co2_per_kwh;
  e.usd = e.facility_kwh * in.usd_per_kwh;
  e.avg_facility_kw = in.hours > 0 ? e.facility_kwh / in.hours : 0;
  return e;
}

}  // namespace gpuplan
