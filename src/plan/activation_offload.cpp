#include "plan/activation_offload.h"

#include <algorithm>

namespace gpuplan {

ActivationOffloadCost activation_offload_cost(double layers, double offloaded, double stored_bytes_per_layer,
                                              double bw_bytes_per_s, double fwd_s_per_layer, double bwd_s_per_layer) {
  ActivationOffloadCost c;
  if (offloaded <= 0 || layers <= 0 || bw_bytes_per_s <= 0) return c;
  const double n = std::min(offloaded, layers);
  const double copy_s = stored_bytes_per_layer / bw_bytes_per_s;  // one layer, one direction
  c.transfer_s = 2 * n * copy_s;
  c.exposed_s = n * (std::max(0.0, copy_s - fwd_s_per_layer) + std::max(0.0, copy_s - bwd_s_per_layer));
  c.resident_fraction = (layers - n) / layers;
  return c;
}

}  // namespace gpuplan
