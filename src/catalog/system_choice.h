// Picking the cluster a training question runs on: the system (scale-up domain) for a GPU
// when the user names none, and the fabric for a system.
#pragma once

#include "catalog/catalog.h"

namespace gpuplan {

// The catalog system built from `gpu` whose domain or host holds `gpus_per_node` GPUs (0 =
// any), preferring an exact domain match, then a host match (GB200 NVL72: 4 per tray), then
// the largest domain. nullptr when no system uses the GPU.
const System* default_system_for(const Catalog& catalog, const Gpu& gpu, int gpus_per_node = 0);

}  // namespace gpuplan
