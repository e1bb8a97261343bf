#include "infer/mla_decode.h"

namespace gpuplan {

double mla_absorbed_decode_flops_per_key_layer(const ModelSpec& m) {
  if (!m.mla) return 0;
  const double heads = static_cast<double>(m.heads);
  const double latent_key = static_cast<double>(m.mla_shape.kv_lora_rank + m.mla_shape.qk_rope_head_dim);
  const double latent_value = static_cast<double>(m.mla_shape.kv_lora_rank);
  return 2 * heads * latent_key + 2 * heads * latent_value;
}

}  // namespace gpuplan
