#include "econ/cost_over_time.h"

#include "core/error.h"

namespace gpuplan {

CostOverTime cost_over_time(double own_upfront_usd, double own_usd_per_hour, double rent_usd_per_hour, int months) {
  GP_ASSERT(own_upfront_usd >= 0 && own_usd_per_hour >= 0 && rent_usd_per_hour > 0 && months >= 1,
            "costs and the period are validated by the caller (answer_tco, answer_cost)");
  CostOverTime t;
  t.own_upfront_usd = own_upfront_usd;
  t.own_usd_per_hour = own_usd_per_hour;
  t.rent_usd_per_hour = rent_usd_per_hour;
  t.breaks_even = rent_usd_per_hour > own_usd_per_hour;
  if (t.breaks_even) {
    t.break_even_hours = own_upfront_usd / (rent_usd_per_hour - own_usd_per_hour);
    t.break_even_months = t.break_even_hours / kHoursPerMonth;
  }
  t.points.reserve(static_cast<std::size_t>(months) + 1);
  for (int m = 0; m <= months; ++m) {
    const double hours = m * kHoursPerMonth;
    t.points.push_back({static_cast<double>(m), own_upfront_usd + own_usd_per_hour * hours, rent_usd_per_hour * hours});
  }
  return t;
}

}  // namespace gpuplan
