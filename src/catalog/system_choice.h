// Picking the cluster a question runs on, in one place for every question (train, memory,
// search, rooflines, collective, infer, sweep, recommend): the GPU, the system (scale-up
// domain) and the fabric above it, from whichever of them the user named.
#pragma once

#include <string>

#include "catalog/catalog.h"

namespace gpuplan {

// The catalog system built from `gpu` whose domain or host holds `gpus_per_node` GPUs (0 =
// any), preferring an exact domain match, then a host match (GB200 NVL72: 4 per tray), then
// the largest domain. nullptr when no system uses the GPU.
const System* default_system_for(const Catalog& catalog, const Gpu& gpu, int gpus_per_node = 0);

// What the user named; empty = not named. Flag names are used in messages.
struct ClusterQuery {
  std::string gpu;     // --gpu
  std::string system;  // --system
  std::string fabric;  // --fabric
  // Whether the question needs a system when none is named (more than one GPU, or a question
  // about links); the GPU's default system is then taken and `note` says so.
  bool needs_system = false;
};

struct ClusterChoice {
  const Gpu* gpu = nullptr;
  const System* system = nullptr;  // nullptr: one GPU on its own
  const Fabric* fabric = nullptr;  // nullptr: NICs only, no fabric above the systems
  bool system_defaulted = false;   // true when the system was chosen for the GPU, not named
};

// Throws Error when a name is unknown, when the names disagree (a system not built from the
// GPU, a fabric not built from the system), when nothing is named, or when a system is needed
// and the catalog has none for the GPU.
ClusterChoice choose_cluster(const Catalog& catalog, const ClusterQuery& query);

}  // namespace gpuplan
