// Owning against renting over time (econ/cost_over_time.h) by hand, and the cost page's joined
// answer (econ/cost_ownership.h): the break-even is where the two cumulative costs meet.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "econ/cost_ownership.h"
#include "econ/cost_over_time.h"
#include "catalog_util.h"

namespace gpuplan {
namespace {

// $1.2 million up front and $20/h to run, against $220/h to rent: 1,200,000 / 200 = 6,000 h,
// 6,000 / 730 = 8.219 months; at month 12 (8,760 h) owning is 1,200,000 + 175,200 = 1,375,200
// and renting 1,927,200.
TEST(CostOverTime, BreakEvenIsTheUpfrontOverTheHourlySaving) {
  const CostOverTime t = cost_over_time(1.2e6, 20, 220, 12);
  EXPECT_TRUE(t.breaks_even);
  EXPECT_DOUBLE_EQ(t.break_even_hours, 6000);
  EXPECT_NEAR(t.break_even_months, 8.2192, 1e-4);
  ASSERT_EQ(t.points.size(), 13u);
  EXPECT_DOUBLE_EQ(t.points[0].own_usd, 1.2e6);
  EXPECT_DOUBLE_EQ(t.points[0].rent_usd, 0);
  EXPECT_DOUBLE_EQ(t.points[12].months, 12);
  EXPECT_DOUBLE_EQ(t.points[12].own_usd, 1375200);
  EXPECT_DOUBLE_EQ(t.points[12].rent_usd, 1927200);
  // Before the break-even owning costs more, after it less.
  EXPECT_GT(t.points[8].own_usd, t.points[8].rent_usd);
  EXPECT_LT(t.points[9].own_usd, t.points[9].rent_usd);
}

TEST(CostOverTime, RentingNoDearerThanRunningNeverBreaksEven) {
  const CostOverTime t = cost_over_time(1e6, 50, 50, 60);
  EXPECT_FALSE(t.breaks_even);
  EXPECT_EQ(t.break_even_months, 0);
  EXPECT_EQ(t.points.size(), 61u);
  for (const CostOverTimePoint& p : t.points) EXPECT_GT(p.own_usd, p.rent_usd);
}

// The joined answer rents at the cheapest current on-demand offer, owns the run's GPUs for the
// TCO's period, and its cost over time is those two figures: the break-even solves
// capex + running·h = rent·h with TCO's own capex and energy.
TEST(CostOwnership, JoinsTheRunsCostAndTheTcoOfItsGpus) {
  const Catalog& catalog = testing::cat();
  CostRequest r;
  r.gpu = "h100-sxm";
  r.gpus = 64;
  r.hours = 100;
  const CostOwnershipAnswer a = answer_cost_ownership(catalog, r);
  ASSERT_TRUE(a.on_demand_row && a.cheapest_row && a.tco && a.over_time) << a.no_ownership;
  const CostRow& od = a.cost.rows[*a.on_demand_row];
  EXPECT_EQ(od.pricing, "on-demand");
  for (const CostRow& row : a.cost.rows) {
    if (row.pricing == "on-demand" && !row.historical) {
      EXPECT_GE(row.cost.usd, od.cost.usd);
    }
    if (!row.historical) {
      EXPECT_GE(row.cost.usd, a.cost.rows[*a.cheapest_row].cost.usd);
    }
  }
  EXPECT_EQ(a.tco->gpus, 64);
  const CostOverTime& t = *a.over_time;
  EXPECT_DOUBLE_EQ(t.rent_usd_per_hour, od.usd_per_gpu_hour * 64);
  EXPECT_DOUBLE_EQ(t.own_upfront_usd, a.tco->capex_usd.value);
  const double hours = a.tco->years.value * kHoursPerYear;
  EXPECT_NEAR(t.own_usd_per_hour * hours, a.tco->on_prem.energy_usd + a.tco->on_prem.ops_usd, 1e-6);
  ASSERT_TRUE(t.breaks_even);
  EXPECT_NEAR(t.own_upfront_usd + t.own_usd_per_hour * t.break_even_hours, t.rent_usd_per_hour * t.break_even_hours, 1e-3);
  EXPECT_EQ(t.points.size(), static_cast<std::size_t>(a.tco->years.value * 12) + 1);
  EXPECT_NEAR(t.points.back().own_usd, a.tco->on_prem.total_usd, 1e-3);
}

TEST(CostOwnership, GpuHoursAloneAnswerTheCostAndSayWhyNotOwning) {
  CostRequest r;
  r.gpu = "h100-sxm";
  r.gpu_hours = 1000;
  const CostOwnershipAnswer a = answer_cost_ownership(testing::cat(), r);
  EXPECT_FALSE(a.tco.has_value());
  EXPECT_NE(a.no_ownership.find("--gpus"), std::string::npos) << a.no_ownership;
  EXPECT_FALSE(a.cost.rows.empty());
}

}  // namespace
}  // namespace gpuplan
