#include "plan/comm_config.h"

#include <algorithm>
#include <cmath>

namespace gpuplan {

double dp_bucket_count(double params, double bucket_params) {
  if (bucket_params <= 0 || params <= 0) return 1;
  return std::max(1.0, std::floor(params / bucket_params));
}

double cp_channel_step_s(double step_s, double bytes, double channel_bw_bytes_per_s) {
  if (channel_bw_bytes_per_s <= 0) return step_s;
  return std::max(step_s, bytes / channel_bw_bytes_per_s);
}

}  // namespace gpuplan
