// On-prem total cost of ownership over N years against renting the same GPUs, and the
// break-even use in hours per day. Pure functions; formulas in docs/model/economics.md.
#pragma once

namespace gpuplan {

constexpr double kHoursPerYear = 8760.0;  // 365 × 24, as Lenovo LP2225's arithmetic uses

// Switches of a two-level non-blocking fat tree for `ports` endpoint ports, built from
// switches of `switch_ports` ports (half down, half up at the leaves). One switch holds up
// to `switch_ports` endpoints; beyond that, leaves = ceil(ports / (switch_ports / 2)) and
// spines = ceil(leaves / 2). 0 ports (one node, no fabric): 0.
int fat_tree_switches(int ports, int switch_ports);

struct OnPremInputs {
  double capex_usd = 0;    // servers + network, bought up front
  double it_power_kw = 0;  // the whole cluster at full draw
  double pue = 1;          // facility / IT power
  double usd_per_kwh = 0;
  double ops_usd_per_year = 0;  // support, staff, space
  double years = 5;
};

struct OnPremTco {
  double energy_kwh = 0;  // facility energy over the years, running 24/7
  double energy_usd = 0;
  double ops_usd = 0;
  double total_usd = 0;     // capex + energy + ops
  double usd_per_hour = 0;  // total / hours in the period
};

// Running 24/7 for the whole period (Lenovo LP2225's scenario): the on-prem cost does not
// fall when the servers sit idle, so it is a fixed cost against a metered cloud bill.
OnPremTco on_prem_tco(const OnPremInputs& in);

// Hours per day of use at which renting at `cloud_usd_per_hour` for `years` costs as much as
// owning (`on_prem_total_usd`): total / (rate × 365 × years). Above 24: renting stays cheaper
// even around the clock.
double break_even_hours_per_day(double on_prem_total_usd, double cloud_usd_per_hour, double years);

}  // namespace gpuplan
