// The economics formulas (src/econ/), each against a hand derivation; the seed documents'
// price arithmetic is checked here rather than copied (docs/seed-errata.md, rows M2 and E*).
#include <gtest/gtest.h>

#include "econ/energy.h"
#include "econ/run_cost.h"
#include "econ/tco.h"

namespace gpuplan {
namespace {

// Seed 000:382 / 001:380: "$32.77/h × 24h × 8 days = ~$6,291": one p4d.24xlarge (8 GPUs).
TEST(EconGolden, SeedP4dEightDaysIs6291) {
  const RunCost c = price_run_on_instances(8, 8 * 24, 8, 32.77 / 8, 0);
  EXPECT_EQ(c.instances, 1);
  EXPECT_DOUBLE_EQ(c.billed_gpu_hours, 1536);
  EXPECT_NEAR(c.usd, 6291.84, 0.01);  // the seed truncates to 6,291
}

// "Spot instances: 70% savings -> ~$1,887": 0.3 × 6,291.84 = 1,887.55, with no restart overhead.
TEST(EconGolden, SeedSpotSeventyPercentSavingIs1887) {
  const RunCost c = price_run_on_instances(8, 8 * 24, 8, 32.77 / 8 * (1 - 0.7), 0);
  EXPECT_NEAR(c.usd, 1887.55, 0.01);
}

// "Lambda Labs: $11.60/h × 24h × 8 days = ~$2,227".
TEST(EconGolden, SeedLambdaRateIs2227) {
  const RunCost c = price_run_on_instances(8, 8 * 24, 8, 11.60 / 8, 0);
  EXPECT_NEAR(c.usd, 2227.2, 0.01);
}

// Llama 3 8B on 100B tokens: 6 × 8.03e9 × 1e11 = 4.82e21 FLOPs; 8 × A100 at 312 TFLOP/s dense
// BF16 = 2.496 PFLOP/s → 1.93e6 s = 22.3 days at 100% MFU, 55.9 at 40%, 44.7 at 50%. The seed's
// "7-10 days" (000:381) is below even the physical bound (docs/seed-errata.md M2).
TEST(EconGolden, Llama3_8bOn100BTokensOn8A100TakesWeeks) {
  const double flops = training_flops_6nd(8.03e9, 100e9);
  EXPECT_NEAR(flops, 4.818e21, 1e18);
  const double days_full = training_seconds(flops, 8, 312e12, 1.0) / 86400;
  EXPECT_NEAR(days_full, 22.3, 0.1);
  EXPECT_GT(days_full, 10.0);  // the seed's upper bound
  EXPECT_NEAR(training_seconds(flops, 8, 312e12, 0.4) / 86400, 55.9, 0.1);
  EXPECT_NEAR(training_seconds(flops, 8, 312e12, 0.5) / 86400, 44.7, 0.1);
}

// Lenovo LP2225 as quoted by seed 003:128-130: ~$0.87M on-prem over 5 years vs $98.32/h on
// demand breaks even at ≈ 5 h/day: 870,000 / (98.32 × 365 × 5) = 4.85. At the 2026-01-21 price of
// $55.04/h the same $0.87M breaks even at 8.66 h/day (docs/seed-errata.md E1).
TEST(EconGolden, LenovoBreakEvenFiveHoursThenNearlyNine) {
  EXPECT_NEAR(break_even_hours_per_day(870000, 98.32, 5), 4.85, 0.01);
  EXPECT_NEAR(break_even_hours_per_day(870000, 55.04, 5), 8.66, 0.01);
  // $98.32 × 8,760 × 5 = $4.31M, the seed's "~$4.3M AWS on-demand".
  EXPECT_NEAR(98.32 * kHoursPerYear * 5, 4.306e6, 1e3);
  // "≈ 9 h/day vs 3-year reserved" implies an effective rate of 870,000 / (9 × 365 × 5) = $53/h.
  EXPECT_NEAR(870000 / (9 * 365.0 * 5), 52.97, 0.01);
}

// 10.2 kW × PUE 1.54 × 43,800 h × $0.08 = $55,041 of electricity over 5 years for one DGX H100,
// more than the ~$40k the seed's split (830k capex + 5 years of operations = 870k) leaves.
TEST(EconTco, EnergyOfOneDgxH100OverFiveYears) {
  OnPremInputs in;
  in.capex_usd = 317000;
  in.it_power_kw = 10.2;
  in.pue = 1.54;
  in.usd_per_kwh = 0.08;
  in.years = 5;
  const OnPremTco t = on_prem_tco(in);
  EXPECT_NEAR(t.energy_kwh, 10.2 * 1.54 * 43800, 1e-6);
  EXPECT_NEAR(t.energy_usd, 55040.83, 0.01);
  EXPECT_NEAR(t.total_usd, 372040.83, 0.01);
  EXPECT_GT(t.energy_usd, 870000 - 830000);
}

TEST(EconTco, FatTreeSwitchCount) {
  EXPECT_EQ(fat_tree_switches(0, 64), 0);
  EXPECT_EQ(fat_tree_switches(8, 64), 1);
  EXPECT_EQ(fat_tree_switches(64, 64), 1);
  EXPECT_EQ(fat_tree_switches(65, 64), 3 + 2);      // 3 leaves of 32 down, 2 spines
  EXPECT_EQ(fat_tree_switches(1024, 64), 32 + 16);  // the DGX SuperPOD H100: 32 leaves, 16 spines
}

// More GPUs can only raise a synchronous job's interruption rate; the overhead is linear in it.
TEST(EconSpot, OverheadGrowsWithInstances) {
  const SpotModel m{0.2, 0.25, 0.5};
  // 1 instance: 0.2/24 per hour × (0.25 + 0.25) h = 0.4167%.
  EXPECT_NEAR(spot_overhead_fraction(m, 1), 0.2 / 24 * 0.5, 1e-12);
  EXPECT_NEAR(spot_overhead_fraction(m, 16), 16 * spot_overhead_fraction(m, 1), 1e-12);
  const RunCost c = price_run_on_instances(16, 100, 8, 1.0, spot_overhead_fraction(m, 2));
  EXPECT_EQ(c.instances, 2);
  EXPECT_NEAR(c.wall_hours, 100 * (1 + 2 * 0.2 / 24 * 0.5), 1e-9);
  EXPECT_NEAR(c.usd, 16 * c.wall_hours, 1e-9);
}

// Whole instances are billed: 9 GPUs on 8-GPU instances pay for 16.
TEST(EconRunCost, WholeInstancesAreBilled) {
  const RunCost c = price_run_on_instances(9, 10, 8, 2.0, 0);
  EXPECT_EQ(c.instances, 2);
  EXPECT_DOUBLE_EQ(c.billed_gpu_hours, 160);
  EXPECT_DOUBLE_EQ(c.usd, 320);
  EXPECT_DOUBLE_EQ(price_gpu_hours(1536, 2.0, 0.1).usd, 1536 * 1.1 * 2.0);
}

// 8 × 1,275 W (a DGX H100's 10.2 kW per GPU) × 0.5 × 100 h = 510 kWh at the servers; × 1.54 =
// 785.4 kWh at the meter; × 0.3674 kg/kWh = 288.6 kg CO2; × $0.08 = $62.83.
TEST(EconEnergy, PowerTimesUtilisationTimesPue) {
  EnergyInputs in;
  in.gpus = 8;
  in.hours = 100;
  in.watts_per_gpu = 1275;
  in.utilization = 0.5;
  in.pue = 1.54;
  in.kg_co2_per_kwh = 0.3674;
  in.usd_per_kwh = 0.08;
  const Energy e = run_energy(in);
  EXPECT_NEAR(e.it_kwh, 510, 1e-9);
  EXPECT_NEAR(e.facility_kwh, 785.4, 1e-9);
  EXPECT_NEAR(e.kg_co2, 288.556, 1e-3);
  EXPECT_NEAR(e.usd, 62.832, 1e-9);
}

}  // namespace
}  // namespace gpuplan
