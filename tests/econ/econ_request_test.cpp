// The economics requests (econ/*_request.h) and the one price rule (catalog/cloud_price.h) on the
// fixture catalog tests/fixtures/catalog: fixed prices, so every dollar below is derived by hand
// and does not move when data/clouds/ is updated.
#include <gtest/gtest.h>

#include "catalog/cloud_price.h"
#include "core/error.h"
#include "econ/cost_request.h"
#include "econ/energy_request.h"
#include "econ/offers.h"
#include "econ/tco_request.h"
#include "test_util.h"

namespace gpuplan {
namespace {

const Catalog& fixture_catalog() {
  static const Catalog catalog = [] {
    CatalogOptions options;
    options.user_paths = {testing::source_dir() + "/tests/fixtures/catalog"};
    return load_catalog(options);
  }();
  return catalog;
}

const CostRow* find_row(const CostAnswer& a, std::string_view instance, std::string_view pricing) {
  for (const CostRow& r : a.rows) {
    if (r.instance == instance && r.pricing == pricing) return &r;
  }
  return nullptr;
}

// fixture-gpu offers: fx.8gpu on-demand 16 $/h (2.00/GPU-h), spot 8 $/h (1.00), historical
// 24 $/h (3.00), fx.1gpu 2.50 (named by alias), fx.gpu-part 0.50 (GPU component only),
// othercloud oc.8gpu 20 $/h (2.50). The price is the cheapest whole-machine current on-demand
// one: 2.00, not the 0.50 GPU part (it leaves the VM out) nor the superseded 3.00.
TEST(CloudPrice, CheapestCurrentWholeMachineOnDemand) {
  const Catalog& cat = fixture_catalog();
  const auto p = cheapest_on_demand(cat, cat.gpu("fixture-gpu"));
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->usd_per_gpu_hour, 2.0);
  EXPECT_EQ(p->source, "fixturecloud fx.8gpu on-demand, 2026-01-01");
  EXPECT_EQ(p->offer->instance, "fx.8gpu");
}

TEST(Offers, FilterByProviderInstanceAliasAndHistory) {
  const Catalog& cat = fixture_catalog();
  OfferFilter f;
  f.gpu = &cat.gpu("fixture-gpu");
  EXPECT_EQ(select_offers(cat, f).size(), 5u);  // all but the historical row
  f.include_historical = true;
  EXPECT_EQ(select_offers(cat, f).size(), 6u);
  f.providers = {"OtherCloud"};  // matched as normalize_name does
  ASSERT_EQ(select_offers(cat, f).size(), 1u);
  f.providers = {"fixturecloud"};
  f.instance = "FX.1GPU";
  ASSERT_EQ(select_offers(cat, f).size(), 1u);  // the offer that names the GPU by its alias
  // Rentable: current, on-demand, whole machine: fx.8gpu, fx.1gpu, oc.8gpu.
  EXPECT_EQ(rentable_offers(cat, cat.gpu("fixture-gpu"), {}).size(), 3u);
  EXPECT_EQ(rentable_offers(cat, cat.gpu("fixture-gpu"), {"othercloud"}).size(), 1u);
  EXPECT_THROW(check_provider(cat, "ibm", "--provider"), Error);
  EXPECT_NO_THROW(check_provider(cat, "FixtureCloud", "--provider"));
}

// 16 GPUs for 2 days = 48 h, 768 GPU-hours.
//   fx.8gpu on-demand: 2 instances × 8 × 48 h × 2.00 = 1,536
//   fx.8gpu spot: overhead 2 instances × 0.24/24 per h × (0.5 h + 1 h / 2) = 0.02;
//                 16 × 48 × 1.02 = 783.36 GPU-h × 1.00 = 783.36
//   fx.1gpu: 16 × 48 × 2.50 = 1,920;  fx.gpu-part: 768 × 0.50 = 384 (with a note)
TEST(CostRequest, HandPricedRowsCheapestFirst) {
  CostRequest q;
  q.gpu = "fixture-gpu";
  q.gpus = 16;
  q.days = 2;
  q.provider = "fixturecloud";
  const CostAnswer a = answer_cost(fixture_catalog(), q);
  EXPECT_DOUBLE_EQ(a.wall_hours, 48);
  EXPECT_DOUBLE_EQ(a.gpu_hours, 768);
  ASSERT_EQ(a.rows.size(), 4u);
  EXPECT_EQ(a.rows[0].instance, "fx.gpu-part");
  EXPECT_NEAR(a.rows[0].cost.usd, 384, 1e-9);
  const CostRow* spot = find_row(a, "fx.8gpu", "spot");
  ASSERT_NE(spot, nullptr);
  EXPECT_NEAR(spot->cost.overhead_fraction, 0.02, 1e-12);
  EXPECT_NEAR(spot->cost.usd, 783.36, 1e-9);
  const CostRow* od = find_row(a, "fx.8gpu", "on-demand");
  ASSERT_NE(od, nullptr);
  EXPECT_EQ(od->cost.instances, 2);
  EXPECT_NEAR(od->cost.usd, 1536, 1e-9);
  const CostRow* one = find_row(a, "fx.1gpu", "on-demand");
  ASSERT_NE(one, nullptr);
  EXPECT_NEAR(one->cost.usd, 1920, 1e-9);
  for (std::size_t i = 1; i < a.rows.size(); ++i) EXPECT_LE(a.rows[i - 1].cost.usd, a.rows[i].cost.usd);
  EXPECT_NE(std::find_if(a.notes.begin(), a.notes.end(),
                         [](const std::string& n) { return n.find("VM part") != std::string::npos; }),
            a.notes.end());
}

// --spot-discount 0.25 derives a spot row from each on-demand row: fx.8gpu at 2.00 × 0.75 = 1.50,
// 16 × 48 × 1.02 × 1.50 = 1,175.04.
TEST(CostRequest, DerivedSpotFromOnDemand) {
  CostRequest q;
  q.gpu = "fixture-gpu";
  q.gpus = 16;
  q.days = 2;
  q.provider = "fixturecloud";
  q.instance = "fx.8gpu";
  q.spot_discount = 0.25;
  const CostAnswer a = answer_cost(fixture_catalog(), q);
  const CostRow* derived = find_row(a, "fx.8gpu", "spot (derived)");
  ASSERT_NE(derived, nullptr);
  EXPECT_DOUBLE_EQ(derived->usd_per_gpu_hour, 1.5);
  EXPECT_NEAR(derived->cost.usd, 1175.04, 1e-9);
}

// Two fixture-nodes: capex 2 × 200,000 + 1 switch × 40,000 = 440,000; 16 kW × PUE 1.5 × 8,760 h
// × 3 years = 630,720 kWh × 0.10 = 63,072; total 503,072. At fx.8gpu's 2.00 × 16 = 32 $/h the
// break-even is 503,072 / (32 × 365 × 3) = 14.357 h/day.
TEST(TcoRequest, HandSizedCapexAndBreakEven) {
  TcoRequest q;
  q.gpu = "fixture-gpu";
  q.gpus = 12;  // rounded up to 2 whole nodes
  q.years = 3;
  q.provider = "fixturecloud";
  const TcoAnswer a = answer_tco(fixture_catalog(), q);
  EXPECT_EQ(a.system, "fixture-node");
  EXPECT_EQ(a.nodes, 2);
  EXPECT_EQ(a.gpus, 16);
  EXPECT_EQ(a.switches, 1);
  EXPECT_DOUBLE_EQ(a.capex_usd.value, 440000);
  EXPECT_DOUBLE_EQ(a.it_power_kw.value, 16);
  EXPECT_NEAR(a.on_prem.energy_usd, 63072, 1e-6);
  EXPECT_NEAR(a.on_prem.total_usd, 503072, 1e-6);
  const auto it =
      std::find_if(a.rows.begin(), a.rows.end(), [](const BreakEvenRow& r) { return r.instance == "fx.8gpu"; });
  ASSERT_NE(it, a.rows.end());
  EXPECT_DOUBLE_EQ(it->usd_per_hour, 32);
  EXPECT_NEAR(it->break_even_hours_per_day, 503072.0 / (32 * 365 * 3), 1e-9);
  for (std::size_t i = 1; i < a.rows.size(); ++i) EXPECT_GE(a.rows[i - 1].usd_per_hour, a.rows[i].usd_per_hour);
}

// 8 GPUs × 1,000 W (8 kW node / 8) × 0.5 × 10 h = 40 kWh IT; × PUE 1.5 = 60 kWh; × 0.4 kg = 24 kg
// CO2; × 0.10 $ = 6 $.
TEST(EnergyRequest, NodeShareAndFixtureFigures) {
  EnergyRequest q;
  q.gpu = "fixture-gpu";
  q.gpus = 8;
  q.hours = 10;
  q.utilization = 0.5;
  const EnergyAnswer a = answer_energy(fixture_catalog(), q);
  EXPECT_DOUBLE_EQ(a.watts_per_gpu.value, 1000);
  EXPECT_NEAR(a.energy.it_kwh, 40, 1e-9);
  EXPECT_NEAR(a.energy.facility_kwh, 60, 1e-9);
  EXPECT_NEAR(a.energy.kg_co2, 24, 1e-9);
  EXPECT_NEAR(a.energy.usd, 6, 1e-9);
}

}  // namespace
}  // namespace gpuplan
