// collective, cost, tco, energy: keywords (the requests' field tables) → the request structs →
// answer_* → typed results, with the library's errors in Python's words (the keyword, never the
// CLI flag: fields.h).
#include <pybind11/stl.h>

#include "calibration/collective_fields.h"
#include "common.h"
#include "core/error.h"
#include "econ/econ_fields.h"
#include "fields.h"
#include "kwargs.h"
#include "report/collective_report.h"
#include "report/econ_report.h"

namespace gpuplan::py {
namespace {

using CollectiveResult = Result<CollectiveAnswer>;
using CostResult = Result<CostAnswer>;
using TcoResult = Result<TcoAnswer>;
using EnergyResult = Result<EnergyAnswer>;

}  // namespace

void bind_econ(pyb::module_& m) {
  result_class<CollectiveAnswer>(m, "CollectiveResult", "One collective's time on a system (gpuplan collective).")
      .def_property_readonly("rows", [](const CollectiveResult& r) { return table(to_json(r.get())["rows"]); },
                             "One row per message size: a DataFrame where pandas is installed.");
  m.def(
      "collective",
      [](pyb::kwargs kwargs) {
        number_as_text(kwargs, "collective", "bytes", true);  // bytes=4096 as well as bytes="4KiB"
        return ask_by_table("collective", kwargs, collective_fields(), &answer_collective);
      },
      "collective(*, op, gpus, bytes=None, system=None, fabric=None, algorithm='auto', dtype='bf16',\n"
      "sweep=False, ...): one collective's time and bus bandwidth (`gpuplan collective`); bytes is a\n"
      "number or a size such as '1GiB'.");

  result_class<CostAnswer>(m, "CostResult", "What a run costs on each cloud offer (gpuplan cost).")
      .def_property_readonly("rows", [](const CostResult& r) { return table(to_json(r.get())["rows"]); },
                             "One row per offer, cheapest first: a DataFrame where pandas is installed.");
  m.def(
      "cost",
      [](pyb::kwargs kwargs) {
        number_as_text(kwargs, "cost", "tokens", false);  // tokens=1e12 as well as tokens="1T"
        return ask_by_table("cost", kwargs, cost_fields(), &answer_cost);
      },
      "cost(*, gpu, gpus=None, days=None, hours=None, gpu_hours=None, model=None, tokens=None, mfu=0.4,\n"
      "provider=None, ...): the run's cost per cloud offer (`gpuplan cost`).");

  result_class<TcoAnswer>(m, "TcoResult", "Owning GPUs against renting them (gpuplan tco).")
      .def_property_readonly("rows", [](const TcoResult& r) { return table(to_json(r.get())["break_even"]); },
                             "Break-even per cloud offer: a DataFrame where pandas is installed.");
  m.def(
      "tco",
      [](pyb::kwargs kwargs) { return ask_by_table("tco", kwargs, tco_fields(), &answer_tco); },
      "tco(*, gpu, gpus=None, system=None, years=5, ...): total cost of ownership and the break-even\n"
      "use against the cloud (`gpuplan tco`).");

  result_class<EnergyAnswer>(m, "EnergyResult", "A run's energy, CO2 and electricity cost (gpuplan energy).")
      .def_property_readonly("facility_kwh", [](const EnergyResult& r) { return r.get().energy.facility_kwh; })
      .def_property_readonly("kg_co2", [](const EnergyResult& r) { return r.get().energy.kg_co2; })
      .def_property_readonly("usd", [](const EnergyResult& r) { return r.get().energy.usd; });
  m.def(
      "energy",
      [](pyb::kwargs kwargs) { return ask_by_table("energy", kwargs, energy_fields(), &answer_energy); },
      "energy(*, gpu, gpus, hours=None, days=None, utilization=None, watts_per_gpu=None, pue=None,\n"
      "kg_co2_per_kwh=None, usd_per_kwh=None, catalog=None): a run's energy, CO2 and electricity cost\n"
      "(`gpuplan energy`).");
}

}  // namespace gpuplan::py
