#include "infer/decode_kv_rate.h"

namespace gpuplan {

double decode_kv_extra_dims() {
  const double r = kDecodeKvRateHd64OverHd128;
  return 128.0 * (1.0 - r) / (2.0 * r - 1.0);
}

double decode_kv_time_factor(int head_dim, bool mla) {
  if (mla || head_dim <= 0 || head_dim >= 128) return 1.0;
  const double h0 = decode_kv_extra_dims();
  const double d = static_cast<double>(head_dim);
  return ((d + h0) / d) / ((128.0 + h0) / 128.0);
}

}  // namespace gpuplan
