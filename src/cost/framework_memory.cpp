// Framework memory terms. Per element counts come from the autograd graph of the Hugging Face
// transformers Llama/Qwen2 layer run eagerly under torch.autocast(bfloat16) (the tensors each
// op's backward formula saves, tools/autograd/derivatives.yaml), with their counts kept in
// data/fitted/frameworks/*.toml so that another framework's graph is a data change.
#include "cost/framework_memory.h"

#include <algorithm>

#include "workload/size_math.h"

namespace gpuplan {

StateBytes framework_state_bytes(const FrameworkMemory& fm, const StateBytes& base) {
  if (!fm.fp32_model) return base;
  StateBytes s = base;
  // The fp32 parameters are the master weights: move the optimizer's 4-byte master copy into
  // the weights and make the gradients fp32.
  s.weight = 4;
  s.grad = 4;
  s.optimizer = std::max(0.0, base.optimizer - 4);
  return s;
}

LayerActivations eager_saved_activations(const FrameworkMemory& fm, const ModelSpec& m, std::int64_t layer_idx,
                                         const OpShape& s, Recompute recompute) {
  LayerActivations out;
  if (!s.eager_elementwise) return out;
  using size_math::d;
  const double a = precision_bytes(s.act);
  const double t = s.tokens();
  const double tp = s.tp;
  const double h = d(m.hidden);
  const double stream_rows = s.sp ? t / tp : t;
  const MixerKind mixer = m.mixer(layer_idx);
  const bool ffn = m.has_ffn(layer_idx);
  const bool attention = mixer != MixerKind::none && mixer != MixerKind::mamba && !m.mla;
  double bytes = 0;
  // RMSNorm chains only: LayerNorm is one native kernel in eager mode too.
  if (m.norm == NormKind::rmsnorm) {
    const double norms = (mixer != MixerKind::none ? 1.0 : 0.0) + (ffn ? 1.0 : 0.0);
    bytes += norms * stream_rows * h * fm.eager_norm_bytes;
  }
  if (attention) {
    const double heads = d(m.heads) / tp;
    const double kv = std::max(1.0, d(m.kv_heads) / tp);
    const double hd = d(m.head_dim);
    if (m.position == PositionKind::rope) bytes += fm.eager_rope_copies * t * (heads + kv) * hd * a;
    bytes += fm.eager_attention_output_copies * t * heads * hd * a;
  }
  if (ffn && m.mlp == MlpKind::swiglu && !m.is_moe_layer(layer_idx)) {
    bytes += fm.eager_swiglu_copies * t * d(m.ffn_hidden) / tp * a;
  }
  if (recompute == Recompute::full) {
    out.working_bytes = bytes;
  } else {
    out.stored_bytes = bytes;
  }
  return out;
}

double loss_bytes_per_logit(const FrameworkMemory& fm, bool eager, double act_bytes) {
  const double framework = eager ? fm.loss_bytes_per_logit_eager : fm.loss_bytes_per_logit_fused;
  return framework > 0 ? framework : act_bytes + 4;
}

}  // namespace gpuplan
