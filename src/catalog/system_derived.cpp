#include "catalog/system_derived.h"

#include <algorithm>

namespace gpuplan {

double scaleup_switch_capacity_uni_bytes_per_s(const System& s, const Switch* nvswitch) {
  if (s.scaleup_topology != "switched" || nvswitch == nullptr) return 0;
  return s.nvswitch_count * nvswitch->capacity_uni_bytes_per_s;
}

double node_total_bw_uni_bytes_per_s(const System& s, const Switch* nvswitch) {
  if (s.scaleup_topology == "none") return 0;
  const double from_gpus = s.gpus * s.scaleup_bw_uni_bytes_per_s;
  const double capacity = scaleup_switch_capacity_uni_bytes_per_s(s, nvswitch);
  return capacity > 0 ? std::min(from_gpus, capacity) : from_gpus;
}

double node_bisection_bw_bytes_per_s(const System& s, const Switch* nvswitch) {
  if (s.gpus < 2 || s.scaleup_topology == "none") return 0;
  if (s.scaleup_topology == "mesh") {
    const double half = s.gpus / 2;  // integer halves: floor and ceil
    const double other = s.gpus - half;
    return 2 * half * other * s.scaleup_per_peer_bw_uni_bytes_per_s;
  }
  // Switched and PCIe: every GPU sends its full one-way rate to the other half, and receives
  // as much; the traffic crossing the cut leaves through the switches' egress ports.
  const double cut = s.gpus * s.scaleup_bw_uni_bytes_per_s;
  const double capacity = scaleup_switch_capacity_uni_bytes_per_s(s, nvswitch);
  return capacity > 0 ? std::min(cut, capacity) : cut;
}

double node_scaleout_bw_uni_bytes_per_s(const System& s) { return s.nics * s.nic_bw_uni_bytes_per_s; }

std::vector<LevelBandwidth> bandwidth_levels(const System& s, const Switch* nvswitch, const Fabric* fabric) {
  std::vector<LevelBandwidth> levels;
  LevelBandwidth node;
  node.name = s.kind == "rack" ? "rack" : "node";
  node.gpus = s.gpus;
  node.subdomains = s.gpus;
  node.switch_id = s.nvswitch;
  node.switches = s.nvswitch_count;
  node.bw_uni_bytes_per_s = node_total_bw_uni_bytes_per_s(s, nvswitch);
  node.bw_per_gpu_uni_bytes_per_s = s.gpus > 0 ? node.bw_uni_bytes_per_s / s.gpus : 0;
  levels.push_back(node);
  if (fabric == nullptr) return levels;
  for (const FabricLevel& fl : fabric->levels) {
    LevelBandwidth level;
    level.name = fl.name;
    level.gpus = fl.gpus;
    level.subdomains = levels.back().gpus > 0 ? fl.gpus / levels.back().gpus : 0;
    level.switch_id = fl.switch_id;
    level.switches = fl.switches;
    level.bw_uni_bytes_per_s = fl.bw_uni_bytes_per_s;
    level.bw_per_gpu_uni_bytes_per_s = fl.bw_per_gpu_uni_bytes_per_s();
    levels.push_back(level);
  }
  return levels;
}

SystemFigures system_figures(const System& s, const Catalog& catalog) {
  const Switch* sw = s.nvswitch.empty() ? nullptr : catalog.find_switch(s.nvswitch);
  SystemFigures f;
  f.scaleup_bw_uni_bytes_per_s = s.scaleup_bw_uni_bytes_per_s;
  f.switch_capacity_uni_bytes_per_s = scaleup_switch_capacity_uni_bytes_per_s(s, sw);
  f.total_node_bw_uni_bytes_per_s = node_total_bw_uni_bytes_per_s(s, sw);
  f.bisection_bw_bytes_per_s = node_bisection_bw_bytes_per_s(s, sw);
  f.scaleout_bw_uni_bytes_per_s = node_scaleout_bw_uni_bytes_per_s(s);
  f.scaleout_bw_uni_bytes_per_s_per_gpu = s.scaleout_bw_uni_bytes_per_s_per_gpu();
  f.scaleup_to_scaleout_ratio = f.scaleout_bw_uni_bytes_per_s_per_gpu > 0
                                    ? s.scaleup_bw_uni_bytes_per_s / f.scaleout_bw_uni_bytes_per_s_per_gpu
                                    : 0;
  f.nics = s.nics;
  return f;
}

std::vector<LevelBandwidth> fabric_levels(const Fabric& f, const Catalog& catalog) {
  const System& s = catalog.system(f.system);
  const Switch* sw = s.nvswitch.empty() ? nullptr : catalog.find_switch(s.nvswitch);
  return bandwidth_levels(s, sw, &f);
}

}  // namespace gpuplan
