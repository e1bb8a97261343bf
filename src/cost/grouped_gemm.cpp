#include "cost/grouped_gemm.h"

#include <algorithm>
#include <cmath>

#include "cost/roofline.h"

namespace gpuplan {

double grouped_gemm_tile_overhead_s(const RooflineDevice& dev, double experts, double rows, double n) {
  if (dev.grouped_tile_overhead_s <= 0 || experts <= 0 || rows <= 0 || n <= 0) return 0;
  // A fractional expert count (the share of experts touched, a mean) launches its tiles in
  // proportion; the row and column tiles of one expert are whole.
  const double tiles = experts * std::ceil(rows / dev.tile_m - 1e-9) * std::ceil(n / dev.tile_n - 1e-9);
  return std::ceil(tiles / dev.sm_count - 1e-9) * dev.grouped_tile_overhead_s;
}

double grouped_gemm_stream_bytes_per_s(const RooflineDevice& dev, double hbm_bytes_per_s) {
  if (dev.grouped_stream_bytes_per_s_per_sm <= 0) return hbm_bytes_per_s;
  return std::min(hbm_bytes_per_s, dev.grouped_stream_bytes_per_s_per_sm * dev.sm_count);
}

}  // namespace gpuplan
