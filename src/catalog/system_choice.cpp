#include "catalog/system_choice.h"

#include <tuple>

#include <fmt/format.h>

#include "catalog/embedded_data.h"
#include "core/error.h"

namespace gpuplan {

const System* default_system_for(const Catalog& catalog, const Gpu& gpu, int gpus_per_node) {
  const System* best = nullptr;
  int best_score = -1;
  // Only the systems built from `gpu` are parsed (the build indexes each system's gpu).
  const auto built_from_gpu = catalog.systems.select([&](const EmbeddedFile& f) { return catalog.is_gpu(f.gpu, gpu); },
                                                     [&](const System& s) { return catalog.is_gpu(s.gpu, gpu); });
  for (const System* candidate : built_from_gpu) {
    const System& s = *candidate;
    int score = 0;
    if (gpus_per_node > 0 && s.gpus == gpus_per_node) score = 3;
    else if (gpus_per_node > 0 && s.gpus_per_host == gpus_per_node) score = 2;
    else score = 1;
    // Ties: the most scale-out bandwidth per GPU, then the larger domain, then NVIDIA's
    // reference (DGX) design over a cloud variant of it.
    const auto rank = [](const System& x) {
      return std::tuple(x.scaleout_bw_uni_bytes_per_s_per_gpu(), x.gpus, x.id.rfind("dgx", 0) == 0);
    };
    if (score > best_score || (score == best_score && best && rank(s) > rank(*best))) {
      best = &s;
      best_score = score;
    }
  }
  return best;
}

}  // namespace gpuplan

namespace gpuplan {

ClusterChoice choose_cluster(const Catalog& catalog, const ClusterQuery& q) {
  ClusterChoice c;
  c.fabric = q.fabric.empty() ? nullptr : &catalog.fabric(q.fabric);
  c.system = !q.system.empty() ? &catalog.system(q.system) : c.fabric ? &catalog.system(c.fabric->system) : nullptr;
  if (c.fabric && catalog.find_system(c.fabric->system) != c.system) {
    throw Error(fmt::format("--fabric {} is built from {}, not {}; drop --system or pick a fabric built from {}",
                            c.fabric->id, c.fabric->system, c.system->id, c.system->id));
  }
  if (!q.gpu.empty()) {
    c.gpu = &catalog.gpu(q.gpu);
    if (c.system && catalog.find_gpu(c.system->gpu) != c.gpu) {
      throw Error(fmt::format("--system {} is built from {}, not {}; drop --gpu or pick a system with {}", c.system->id,
                              c.system->gpu, c.gpu->id, c.gpu->id));
    }
  } else if (c.system) {
    c.gpu = &catalog.gpu(c.system->gpu);
  } else {
    throw Error("name the GPU (--gpu h100-sxm), the system (--system dgx-h100) or the fabric (--fabric NAME)");
  }
  if (!c.system && q.needs_system) {
    c.system = default_system_for(catalog, *c.gpu);
    if (!c.system) {
      throw Error(fmt::format("no system in the catalog is built from {}; name one with --system", c.gpu->id));
    }
    c.system_defaulted = true;
  }
  return c;
}

}  // namespace gpuplan
