#include "plan/cuda_graphs.h"

namespace gpuplan {

GraphedOps graphed_ops(const ModelSpec& m, std::int64_t layer_idx, const LayerOps& ops, int mixer_end,
                       std::uint8_t scope) {
  GraphedOps g;
  if (scope == 0) return g;
  if ((scope & kGraphFullIteration) != 0) {
    g.end = ops.count;
    return g;
  }
  const MixerKind mixer = m.mixer(layer_idx);
  const bool mixer_graphed = mixer_end > 0 && ((mixer == MixerKind::attention && (scope & kGraphAttn) != 0) ||
                                               (mixer == MixerKind::mamba && (scope & kGraphMamba) != 0));
  int ffn_end = mixer_end;  // the end of the captured part after the mixer
  if (m.is_moe_layer(layer_idx)) {
    if ((scope & (kGraphMoeRouter | kGraphMoePreprocess)) != 0 && ops.host_sync_at > mixer_end) {
      ffn_end = ops.host_sync_at;
    }
  } else if (m.has_ffn(layer_idx) && (scope & kGraphMlp) != 0) {
    ffn_end = ops.count;
  }
  const int begin = mixer_graphed ? 0 : mixer_end;
  if (ffn_end > begin) {
    g.begin = begin;
    g.end = ffn_end;
    g.launches_per_pass = 1;
  }
  return g;
}

}  // namespace gpuplan
