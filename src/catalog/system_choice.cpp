#include "catalog/system_choice.h"

#include <tuple>

namespace gpuplan {

const System* default_system_for(const Catalog& catalog, const Gpu& gpu, int gpus_per_node) {
  const System* best = nullptr;
  int best_score = -1;
  for (const System& s : catalog.systems) {
    if (catalog.find_gpu(s.gpu) != &gpu) continue;
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
