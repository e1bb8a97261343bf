// Grouped GEMMs: one kernel over the problems of several experts (the routed experts of a MoE
// layer on one GPU), each rows × n × k with its own weights. Measured on H100 and H200 SXM
// (scripts/moe_gemm_profile.py; data/calibration/moe/; docs/model/moe-serving.md, "Grouped
// expert GEMMs as measured"), two costs a dense GEMM of the same FLOPs does not pay:
//   - each wave of output tiles over the SMs pays a fixed cost: every tile starts a new
//     expert's weight operand through its pipeline (4.5 µs per wave on both GPUs, so a
//     property of the kernel on the SM, not of the memory);
//   - the experts' weights stream at a rate per SM (about 22 GB/s per SM: 2.8 TB/s on an
//     H100's 132 SMs, 3.0 TB/s on an H200's, whose HBM gives 4.4 TB/s to a plain read), so a
//     part with more HBM bandwidth than its SMs can pull gains nothing at small batch.
// Both are zero on a family without the measurement (RooflineDevice::grouped_*).
#pragma once

namespace gpuplan {

struct RooflineDevice;

// Waves of output tiles of `experts` problems of `rows` × `n` each (tile_m rows × tile_n
// columns per tile, as the family's GEMM tiles) over the SMs, times the measured cost per wave.
// Experts with no rows launch no tiles: pass the experts the step's tokens reach.
double grouped_gemm_tile_overhead_s(const RooflineDevice& dev, double experts, double rows, double n);

// Bandwidth at which a grouped GEMM streams its experts' weights: `hbm_bytes_per_s` (the
// caller's achievable rate) capped by the SMs' measured pull. `hbm_bytes_per_s` when the family
// has no measurement.
double grouped_gemm_stream_bytes_per_s(const RooflineDevice& dev, double hbm_bytes_per_s);

}  // namespace gpuplan
