// The seed's scaling rooflines: golden cases from tests/golden/rooflines.txt, and the TP
// divisor the seed got wrong (docs/seed-errata.md R1).
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "cost/rooflines.h"
#include "test_util.h"

namespace gpuplan {
namespace {

TEST(Rooflines, GoldenCasesFromTheSeed) {
  const Catalog& c = default_catalog();
  std::ifstream in(testing::source_dir() + "/tests/golden/rooflines.txt");
  ASSERT_TRUE(in) << "tests/golden/rooflines.txt";
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string gpu, system, fabric, level, metric;
    double expected = 0;
    double tolerance = 0;
    if (!(fields >> gpu >> system >> fabric >> level >> metric >> expected >> tolerance)) continue;
    const System& s = c.system(system);
    const Fabric* f = fabric == "-" ? nullptr : &c.fabric(fabric);
    const Switch* sw = s.nvswitch.empty() ? nullptr : c.find_switch(s.nvswitch);
    RooflineInputs inputs;
    inputs.flops_per_s = c.gpu(gpu).dense(Precision::bf16);
    const auto rows = scaling_rooflines(bandwidth_levels(s, sw, f), s.in_network_reduction,
                                        f && f->in_network_reduction, inputs);
    const LevelRoofline* row = nullptr;
    for (const auto& r : rows) {
      if (r.name == level) row = &r;
    }
    ASSERT_NE(row, nullptr) << line;
    const double got = metric == "dp"     ? row->dp_tokens_per_gpu
                       : metric == "fsdp" ? row->fsdp_tokens_per_gpu
                       : metric == "moe"  ? row->moe_tokens_per_gpu
                                          : row->tp_max;
    EXPECT_NEAR(got / expected, 1.0, tolerance) << line << " got " << got;
    ++cases;
  }
  EXPECT_EQ(cases, 7);
}

TEST(Rooflines, SeedTpDivisorUses898WhereItMeans989) {
  // Seed 004:378: Y < F / (898e12 · (8−1) / (8 · 450e9)) = F / 1,746. With C = 989e12 the
  // divisor is 1,923 and the bound at F = 16,384 is 8.5, not 9.
  EXPECT_NEAR(tp_bound_divisor(898e12, 8, 450e9), 1746, 1);
  EXPECT_NEAR(tp_bound_divisor(989e12, 8, 450e9), 1923, 1);
  EXPECT_NEAR(16384 / tp_bound_divisor(989e12, 8, 450e9), 8.52, 0.01);
}

TEST(Rooflines, WithoutInNetworkReductionTheDpBoundDoubles) {
  LevelBandwidth node{"node", 8, 8, "", 4, 3.6e12, 450e9};
  RooflineInputs in;
  in.flops_per_s = 989e12;
  const auto with = scaling_rooflines({node}, true, false, in);
  const auto without = scaling_rooflines({node}, false, false, in);
  EXPECT_NEAR(without[0].dp_tokens_per_gpu, 2 * with[0].dp_tokens_per_gpu, 1e-9);
  EXPECT_NEAR(with[0].dp_tokens_per_gpu, 989e12 / 900e9, 1e-9);
}

}  // namespace
}  // namespace gpuplan
