// `gpuplan cost`, `tco` and `energy` end to end: the seed's price goldens through the command
// line (prices given on the line), catalog defaults and dated prices on the fixture catalog
// (tests/fixtures/catalog, fixed figures), and bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

nlohmann::json json_of(const std::vector<std::string>& args) {
  const auto r = run(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

// The fixture catalog (tests/fixtures/catalog): fixed prices, so these dollars never move.
std::vector<std::string> fixture_args(std::vector<std::string> args) {
  args.insert(args.begin(), {"--catalog", testing::source_dir() + "/tests/fixtures/catalog"});
  return args;
}

// 8 × fixture-gpu for 8 days = 1,536 GPU-hours on one fx.8gpu instance: 2.00/GPU-h now → 3,072;
// the superseded 3.00 (--all) → 4,608; spot 1.00 with 1 instance × 0.24/24 × (0.5 + 1/2) = 1% → 1,551.36.
TEST(EconCli, FixtureEightDaysCurrentHistoricalAndSpot) {
  const auto j = json_of(fixture_args({"cost", "--gpu", "fixture-gpu", "--gpus", "8", "--days", "8", "--provider",
                                       "fixturecloud", "--instance", "fx.8gpu", "--all", "--json"}));
  ASSERT_EQ(j["rows"].size(), 3u) << j.dump(2);
  EXPECT_EQ(j["rows"][0]["pricing"], "spot");
  EXPECT_NEAR(j["rows"][0]["usd"].get<double>(), 1551.36, 1e-6);
  EXPECT_EQ(j["rows"][1]["pricing"], "on-demand");
  EXPECT_FALSE(j["rows"][1]["historical"].get<bool>());
  EXPECT_NEAR(j["rows"][1]["usd"].get<double>(), 3072, 1e-6);
  EXPECT_EQ(j["rows"][1]["price_date"], "2026-01-01");
  EXPECT_TRUE(j["rows"][2]["historical"].get<bool>());
  EXPECT_NEAR(j["rows"][2]["usd"].get<double>(), 4608, 1e-6);
}

// "70% spot saving → ~$1,887" and "Lambda $11.60/h → ~$2,227" with prices given on the line.
TEST(EconCli, GivenPricesAndDerivedSpot) {
  const auto j = json_of({"cost", "--gpu", "a100-sxm-40gb", "--gpus", "8", "--days", "8", "--usd-per-hour", "32.77",
                          "--spot-discount", "0.7", "--spot-overhead", "0", "--json"});
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["pricing"], "spot (derived)");
  EXPECT_NEAR(j["rows"][0]["usd"].get<double>(), 1887.55, 0.01);
  EXPECT_NEAR(j["rows"][1]["usd"].get<double>(), 6291.84, 0.01);
  const auto lambda =
      json_of({"cost", "--gpu", "a100-sxm-40gb", "--gpus", "8", "--days", "8", "--usd-per-hour", "11.60", "--json"});
  EXPECT_NEAR(lambda["rows"][0]["usd"].get<double>(), 2227.2, 0.01);
}

// Llama 3 8B, 100B tokens, 8 × A100: ≈ 22 days at 100% MFU, ~45-56 at 50-40%, not "7-10".
TEST(EconCli, ModelDurationIsPhysical) {
  const auto j = json_of({"cost", "--model", "llama3-8b", "--tokens", "100B", "--gpus", "8", "--gpu", "a100-sxm-40gb",
                          "--provider", "aws", "--rule-of-thumb", "--json"});
  const auto& m = j["model"];
  EXPECT_EQ(m["method"], "6ND");
  EXPECT_NEAR(m["flops"].get<double>(), 4.82e21, 0.01e21);
  EXPECT_NEAR(m["hours_at_full_mfu"].get<double>() / 24, 22.3, 0.2);
  EXPECT_NEAR(m["hours_at_mfu"].get<double>() / 24, 55.9, 0.5);  // default MFU 0.4
  EXPECT_NEAR(m["hours_at_half_mfu"].get<double>() / 24, 44.7, 0.5);
  EXPECT_DOUBLE_EQ(j["wall_hours"].get<double>(), m["hours_at_mfu"].get<double>());
  // Without --rule-of-thumb: the search's best plan, never faster than the 100% MFU bound.
  const auto s = json_of({"cost", "--model", "llama3-8b", "--tokens", "100B", "--gpus", "8", "--gpu",
                          "a100-sxm-40gb", "--seq-len", "8192", "--provider", "aws", "--json"});
  EXPECT_EQ(s["model"]["method"], "search");
  EXPECT_GT(s["wall_hours"].get<double>(), s["model"]["hours_at_full_mfu"].get<double>());
  EXPECT_EQ(s["model"]["global_batch"], 512);  // 2^22 tokens / 8,192
}

// Lenovo LP2225 via seed 003: $0.87M on-prem vs $98.32/h → ≈ 5 h/day; at $55.04/h ≈ 8.7.
TEST(EconCli, TcoBreakEvenGolden) {
  auto j = json_of(
      {"tco", "--gpu", "h100-sxm", "--capex", "870000", "--power-kw", "0", "--cloud-usd-per-hour", "98.32", "--json"});
  EXPECT_NEAR(j["on_prem"]["total_usd"].get<double>(), 870000, 1e-6);
  EXPECT_NEAR(j["break_even"][0]["break_even_hours_per_day"].get<double>(), 4.85, 0.01);
  // Fixture offers for 8 GPUs: fx.8gpu 16 $/h now, 24 $/h superseded: 870,000 / (16 × 365 × 5) =
  // 29.79 h/day (renting wins even 24/7), 870,000 / (24 × 365 × 5) = 19.86.
  j = json_of(fixture_args({"tco", "--gpu", "fixture-gpu", "--capex", "870000", "--power-kw", "0", "--provider",
                            "fixturecloud", "--all", "--json"}));
  bool seen_now = false;
  bool seen_old = false;
  for (const auto& row : j["break_even"]) {
    if (row["instance"] != "fx.8gpu") continue;
    const double h = row["break_even_hours_per_day"].get<double>();
    if (row["historical"].get<bool>()) {
      EXPECT_NEAR(h, 870000.0 / (24 * 365 * 5), 1e-9);
      seen_old = true;
    } else {
      EXPECT_NEAR(h, 870000.0 / (16 * 365 * 5), 1e-9);
      seen_now = true;
    }
  }
  EXPECT_TRUE(seen_now && seen_old) << j.dump(2);
}

// Defaults from the (fixture) catalog: one fixture-node at 200k, 8 kW, PUE 1.5, 0.10 $/kWh:
// energy over 5 years = 8 × 1.5 × 43,800 h × 0.10 = 52,560.
TEST(EconCli, TcoDefaultsComeFromTheCatalog) {
  const auto j = json_of(fixture_args({"tco", "--gpu", "fixture-gpu", "--json"}));
  EXPECT_EQ(j["system"], "fixture-node");
  EXPECT_EQ(j["nodes"], 1);
  EXPECT_DOUBLE_EQ(j["capex_usd"]["value"].get<double>(), 200000);
  EXPECT_NE(j["capex_usd"]["from"].get<std::string>().find("2026-01"), std::string::npos);
  EXPECT_DOUBLE_EQ(j["it_power_kw"]["value"].get<double>(), 8);
  EXPECT_DOUBLE_EQ(j["pue"]["value"].get<double>(), 1.5);
  EXPECT_NEAR(j["on_prem"]["energy_usd"].get<double>(), 52560, 1e-6);
  // Two nodes need a switch: 2 × 200k + 1 × 40k.
  const auto two = json_of(fixture_args({"tco", "--gpu", "fixture-gpu", "--gpus", "16", "--json"}));
  EXPECT_EQ(two["nodes"], 2);
  EXPECT_EQ(two["switches"], 1);
  EXPECT_DOUBLE_EQ(two["capex_usd"]["value"].get<double>(), 2 * 200000 + 40000);
}

// 8 × 1,000 W × 0.5 × 100 h = 400 kWh IT × PUE 1.5 = 600 kWh × 0.4 kg = 240 kg CO2.
TEST(EconCli, EnergyUsesTheNodeShareAndCatalogCarbon) {
  const auto j = json_of(fixture_args(
      {"energy", "--gpu", "fixture-gpu", "--gpus", "8", "--hours", "100", "--utilization", "0.5", "--json"}));
  EXPECT_DOUBLE_EQ(j["watts_per_gpu"]["value"].get<double>(), 1000);  // 8,000 W / 8
  EXPECT_NEAR(j["facility_kwh"].get<double>(), 600, 1e-9);
  EXPECT_NEAR(j["kg_co2"].get<double>(), 240, 1e-9);
  const auto given = json_of({"energy", "--gpu", "h100-sxm", "--gpus", "1", "--hours", "10", "--watts-per-gpu", "700",
                              "--pue", "1.1", "--kg-co2-per-kwh", "0", "--json"});
  EXPECT_NEAR(given["facility_kwh"].get<double>(), 7.7, 1e-9);
  EXPECT_DOUBLE_EQ(given["kg_co2"].get<double>(), 0);
}

TEST(EconCli, BadInputNamesTheFlagOrTheKnownProviders) {
  auto r = run({"cost", "--gpu", "h100-sxm", "--gpus", "8", "--days", "8", "--provider", "ibm"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("known providers: aws"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("lambda"), std::string::npos) << r.err;
  r = run({"cost", "--gpu", "h100-sxm", "--hours", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--hours"), std::string::npos) << r.err;
  r = run({"cost", "--gpu", "h100-sxm", "--gpus", "8", "--days", "-1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--days"), std::string::npos) << r.err;
  r = run({"tco", "--gpu", "h100-sxm", "--years", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--years"), std::string::npos) << r.err;
  r = run({"tco", "--gpu", "h100-sxm", "--pue", "0.9"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--pue"), std::string::npos) << r.err;
  r = run({"energy", "--gpu", "h100-sxm", "--gpus", "8", "--hours", "10", "--utilization", "1.5"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--utilization"), std::string::npos) << r.err;
  r = run({"cost", "--gpu", "h100-sxm", "--model", "llama3-8b", "--tokens", "100B", "--gpus", "8", "--mfu", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--mfu"), std::string::npos) << r.err;
  // A GPU with no server price and no --capex.
  r = run({"tco", "--gpu", "b200"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--capex"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuplan
