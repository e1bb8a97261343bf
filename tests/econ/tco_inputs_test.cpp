// The `tco_inputs` catalog kind (data/econ/): the shipped entry's references resolve, and the
// parser rejects a PUE below 1, a date it cannot read and keys it does not know.
#include <gtest/gtest.h>

#include <string>

#include "catalog/catalog.h"
#include "core/error.h"

namespace gpuplan {
namespace {

TEST(TcoInputs, ShippedEntryResolves) {
  const Catalog& catalog = default_catalog();
  ASSERT_EQ(catalog.tco_inputs.size(), 1u);
  const TcoInputs& t = catalog.tco_inputs.front();
  EXPECT_EQ(t.id, "default");
  EXPECT_DOUBLE_EQ(t.pue.value, 1.54);
  EXPECT_DOUBLE_EQ(t.usd_per_kwh.value, 0.08);
  EXPECT_NEAR(t.kg_co2_per_kwh.value, 0.81 * 0.45359237, 1e-3);  // EIA 2023: 0.81 lb/kWh
  EXPECT_NE(catalog.find_switch(t.network_switch), nullptr);
  for (const ServerPrice& s : t.servers) {
    EXPECT_NE(catalog.find_system(s.system), nullptr) << s.system;
    EXPECT_FALSE(s.usd.date.empty());
    EXPECT_FALSE(s.usd.provenance.source.empty());
  }
}

std::string entry(const std::string& pue_table) {
  return R"(kind = "tco_inputs"
id = "x"
name = "x"
source = "s"
retrieved = "2026-01-01"
[electricity]
usd_per_kwh = 0.1
date = "2024"
[carbon]
kg_co2_per_kwh = 0.4
date = "2023"
[operations]
usd_per_node_year = 0
date = "2025"
[network]
switch = "qm9700"
usd_per_switch = 1
date = "2024-08"
[spot]
interruptions_per_instance_per_day = 0
date = "2025"
)" + pue_table;
}

TEST(TcoInputs, ParserRejectsBadFigures) {
  Catalog ok;
  load_catalog_text(ok, entry("[pue]\npue = 1.2\ndate = \"2025-05\"\n"), "ok.toml", false);
  ASSERT_EQ(ok.tco_inputs.size(), 1u);
  EXPECT_DOUBLE_EQ(ok.tco_inputs[0].pue.value, 1.2);
  for (const std::string bad : {"[pue]\npue = 0.9\ndate = \"2025\"\n", "[pue]\npue = 1.2\ndate = \"May 2025\"\n",
                                "[pue]\npue = 1.2\ndate = \"2025\"\npeu = 1\n"}) {
    Catalog c;
    EXPECT_THROW(load_catalog_text(c, entry(bad), "bad.toml", false), Error) << bad;
  }
}

}  // namespace
}  // namespace gpuplan
