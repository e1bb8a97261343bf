// Figures derived from a system's and a fabric's catalog values, as pure functions: bandwidth
// per GPU at each level, total node bandwidth, bisection bandwidth, scale-out per GPU.
// Bandwidths are one direction unless the name says otherwise (bisection counts both).
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace gpuplan {

// All switch chips of the scale-up domain, one direction: switches x ports x port rate
// (8xH100: 4 x 64 x 25 GB/s = 6.4 TB/s). 0 when the domain has no switch.
double scaleup_switch_capacity_uni_bytes_per_s(const System& s, const Switch* nvswitch);

// What all GPUs of the domain can push into it at once, one direction: GPUs x per-GPU
// scale-up bandwidth, capped by the switch capacity when there is a switch
// (seed 004: 8xH100 = min(8 x 450 GB/s, 6.4 TB/s) = 3.6 TB/s).
double node_total_bw_uni_bytes_per_s(const System& s, const Switch* nvswitch);

// Bisection bandwidth as seed 004 (problem 2) and NVIDIA's Hot Chips 2022 slides define it:
// the bandwidth crossing the worst split of the GPUs into two equal halves, both directions
// counted. Switched: each GPU sends its full one-way rate across the cut, so N x W (8xH100:
// 8 x 450 GB/s = 3.6 TB/s), capped by the switch capacity. Mesh: only the links that cross
// the cut count, 2 x floor(N/2) x ceil(N/2) x per-peer (8xMI300X: 2 x 16 x 64 = 2.05 TB/s).
// PCIe: N x the slot rate, an upper bound (the host bridge may carry less).
double node_bisection_bw_bytes_per_s(const System& s, const Switch* nvswitch);

// NICs x line rate, one direction (DGX H100: 8 x 50 GB/s = 400 GB/s).
double node_scaleout_bw_uni_bytes_per_s(const System& s);

// One level of the bandwidth hierarchy as a GPU sees it: the scale-up domain first, then
// each fabric level outwards (seed 004's SuperPOD table: 3.6 / 12.8 / 51.2 TB/s).
struct LevelBandwidth {
  std::string name;    // "node" or "rack", then the fabric's level names
  int gpus = 0;        // GPUs under one unit of this level
  int subdomains = 0;  // units of the level below in one unit (for the node: its GPUs)
  std::string switch_id;
  int switches = 0;
  double bw_uni_bytes_per_s = 0;          // W_i, aggregate of one unit
  double bw_per_gpu_uni_bytes_per_s = 0;  // W_i / GPUs (SuperPOD H100: 450, 50, 50 GB/s)
};

// The node level alone when `fabric` is null.
std::vector<LevelBandwidth> bandwidth_levels(const System& s, const Switch* nvswitch, const Fabric* fabric);

// Everything above for one system, its switch looked up in the catalog.
struct SystemFigures {
  double scaleup_bw_uni_bytes_per_s = 0;  // per GPU
  double switch_capacity_uni_bytes_per_s = 0;
  double total_node_bw_uni_bytes_per_s = 0;
  double bisection_bw_bytes_per_s = 0;
  double scaleout_bw_uni_bytes_per_s = 0;  // whole node
  double scaleout_bw_uni_bytes_per_s_per_gpu = 0;
  double scaleup_to_scaleout_ratio = 0;  // per GPU (DGX H100: 450 / 50 = 9)
  int nics = 0;
};
SystemFigures system_figures(const System& s, const Catalog& catalog);

// A fabric's levels, starting with its system's node level.
std::vector<LevelBandwidth> fabric_levels(const Fabric& f, const Catalog& catalog);

}  // namespace gpuplan
