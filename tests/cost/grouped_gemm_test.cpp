// The grouped expert GEMM's measured terms (cost/grouped_gemm.h), by hand, and the Hopper
// entry's figures as the data file gives them.
#include "cost/grouped_gemm.h"

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "cost/roofline.h"

namespace gpuplan {
namespace {

RooflineDevice grouped_device() {
  RooflineDevice dev;
  dev.sm_count = 132;
  dev.tile_m = 128;
  dev.tile_n = 256;
  dev.grouped_tile_overhead_s = 5e-6;
  dev.grouped_stream_bytes_per_s_per_sm = 20e9;
  return dev;
}

TEST(GroupedGemm, TileWavesByHand) {
  const RooflineDevice dev = grouped_device();
  // 128 experts × ceil(8/128) = 1 row tile × ceil(5760/256) = 23 column tiles = 2,944 tiles;
  // over 132 SMs: ceil(22.3) = 23 waves × 5 µs = 115 µs.
  EXPECT_NEAR(grouped_gemm_tile_overhead_s(dev, 128, 8, 5760), 115e-6, 1e-12);
  // 8 experts × ceil(300/128) = 3 × ceil(4096/256) = 16 = 384 tiles: ceil(2.91) = 3 waves = 15 µs.
  EXPECT_NEAR(grouped_gemm_tile_overhead_s(dev, 8, 300, 4096), 15e-6, 1e-12);
  // Exactly 128 rows is one row tile, 256 columns one column tile: 132 experts fill one wave.
  EXPECT_NEAR(grouped_gemm_tile_overhead_s(dev, 132, 128, 256), 5e-6, 1e-12);
  EXPECT_NEAR(grouped_gemm_tile_overhead_s(dev, 133, 128, 256), 10e-6, 1e-12);
}

TEST(GroupedGemm, NothingWithoutRowsOrMeasurement) {
  RooflineDevice dev = grouped_device();
  EXPECT_EQ(grouped_gemm_tile_overhead_s(dev, 0, 8, 4096), 0);
  EXPECT_EQ(grouped_gemm_tile_overhead_s(dev, 8, 0, 4096), 0);
  dev.grouped_tile_overhead_s = 0;
  EXPECT_EQ(grouped_gemm_tile_overhead_s(dev, 128, 8, 5760), 0);
  dev.grouped_stream_bytes_per_s_per_sm = 0;
  EXPECT_EQ(grouped_gemm_stream_bytes_per_s(dev, 4e12), 4e12);
}

TEST(GroupedGemm, StreamIsTheSmsPullWhereBelowHbm) {
  const RooflineDevice dev = grouped_device();
  // 132 SMs × 20 GB/s = 2.64 TB/s: caps 4 TB/s of HBM, not 2 TB/s.
  EXPECT_NEAR(grouped_gemm_stream_bytes_per_s(dev, 4e12), 2.64e12, 1);
  EXPECT_NEAR(grouped_gemm_stream_bytes_per_s(dev, 2e12), 2e12, 1);
}

TEST(GroupedGemm, HopperCarriesTheMeasuredFigures) {
  const Catalog& c = default_catalog();
  const Gpu& h200 = c.gpu("h200-sxm");
  const Efficiency* hopper = efficiency_for(c.efficiencies, h200);
  ASSERT_NE(hopper, nullptr);
  EXPECT_NEAR(hopper->grouped_tile_overhead_s, 5.75e-6, 1e-12);
  EXPECT_NEAR(hopper->grouped_stream_bytes_per_s_per_sm, 22.6e9, 1);
  const RooflineDevice dev = make_roofline_device(h200, *hopper, nullptr);
  // 132 SMs × 22.6 GB/s = 2.98 TB/s, below the H200's 4.8 TB/s of HBM.
  EXPECT_NEAR(grouped_gemm_stream_bytes_per_s(dev, 4.8e12), 132 * 22.6e9, 1);
  // A family without the measurement has no grouped term.
  Gpu other = h200;
  other.architecture = "TPU v5p";
  const Efficiency* generic = efficiency_for(c.efficiencies, other);
  ASSERT_NE(generic, nullptr);
  EXPECT_EQ(generic->grouped_tile_overhead_s, 0);
}

}  // namespace
}  // namespace gpuplan
