// Owning against renting over time: the cumulative cost of owning GPUs (the purchase up front,
// then power and operations by the hour, around the clock) and of renting the same GPUs around
// the clock at a cloud rate, and the month at which owning has cost less. Pure functions; the
// inputs are TCO's (econ/tco.h, Lenovo LP2225's scenario). docs/model/economics.md.
#pragma once

#include <vector>

namespace gpuplan {

constexpr double kHoursPerMonth = 8760.0 / 12;  // 730: a twelfth of tco.h's year

struct CostOverTimePoint {
  double months = 0;
  double own_usd = 0;   // upfront + running × hours
  double rent_usd = 0;  // rent rate × hours
};

struct CostOverTime {
  double own_upfront_usd = 0;          // capex, paid at month 0
  double own_usd_per_hour = 0;         // power and operations of the owned cluster, running 24/7
  double rent_usd_per_hour = 0;        // the cloud rate for the same GPUs
  bool breaks_even = false;            // renting costs more per hour than running owned GPUs
  double break_even_hours = 0;         // upfront / (rent − running); 0 when !breaks_even
  double break_even_months = 0;        // break_even_hours / kHoursPerMonth
  std::vector<CostOverTimePoint> points;  // month 0, 1, ..., `months`
};

// The two cumulative costs at each whole month up to `months` (at least 1), and the break-even:
// upfront + running·h = rent·h  ⇒  h = upfront / (rent − running). Where renting costs no more
// per hour than running owned GPUs, owning never catches up (breaks_even = false).
CostOverTime cost_over_time(double own_upfront_usd, double own_usd_per_hour, double rent_usd_per_hour, int months);

}  // namespace gpuplan
