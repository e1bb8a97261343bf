#include "econ/tco.h"

#include "core/error.h"

namespace gpuplan {

int fat_tree_switches(int ports, int switch_ports) {
  GP_ASSERT(ports >= 0 && switch_ports >= 2, "port counts are validated by the caller");
  if (ports == 0) return 0;
  if (ports <= switch_ports) return 1;
  const int down = switch_ports / 2;
  const int leaves = (ports + down - 1) / down;
  const int spines = (leaves + 1) / 2;
  return leaves + spines;
}

OnPremTco on_prem_tco(const OnPremInputs& in) {
  OnPremTco t;
  const double hours = in.years * kHoursPerYear;
  t.energy_kwh = in.it_power_kw * in.pue * hours;
  t.energy_usd = t.energy_kwh * in.usd_per_kwh;
  t.ops_usd = in.ops_usd_per_year * in.years;
  t.total_usd = in.capex_usd + t.energy_usd + t.ops_usd;
  t.usd_per_hour = hours > 0 ? t.total_usd / hours : 0;
  return t;
}

double break_even_hours_per_day(double on_prem_total_usd, double cloud_usd_per_hour, double years) {
  GP_ASSERT(cloud_usd_per_hour > 0 && years > 0, "rates and periods are validated by the caller");
  return on_prem_total_usd / (cloud_usd_per_hour * 365.0 * years);
}

}  // namespace gpuplan
