#include "train_step.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace gpuplan::cuda {
namespace {

std::size_t z(int v) { return static_cast<std::size_t>(v); }

}  // namespace

TrainingStep::TrainingStep(const StepShape& shape, unsigned seed)
    : shape_(shape), layout_(step_layout(shape)), batch_(step_batch(shape, seed)), pass_(lt_, shape.layer),
      master_(layout_.total), grads_(layout_.total), m_(layout_.total), v_(layout_.total), params_(layout_.total),
      tokens_(batch_.tokens.size()), targets_(batch_.targets.size()), xnf_(pass_.dims().t * pass_.dims().h),
      rstdf_(pass_.dims().t), logits_(pass_.dims().t * z(shape.vocab)), lse_(pass_.dims().t),
      losses_(pass_.dims().t), loss_(1), dlogits_(logits_.count), dxnf_(xnf_.count), dx_a_(xnf_.count),
      dx_b_(xnf_.count),
      // LM head: logits [T,V] (fp32, for the loss) = xnf [T,H] · headᵀ; backward dxnf = dlogits ·
      // head and dhead [V,H] = dlogitsᵀ · xnf (fp32, as the layers' weight gradients).
      logits_mm_(lt_, bf16_gemm(Elem::f32, false, true, pass_.dims().t, z(shape.vocab), pass_.dims().h)),
      dxnf_mm_(lt_, bf16_gemm(Elem::bf16, false, false, pass_.dims().t, pass_.dims().h, z(shape.vocab))),
      dhead_mm_(lt_, bf16_gemm(Elem::f32, true, false, z(shape.vocab), pass_.dims().h, pass_.dims().t)) {
  const std::size_t tokens = pass_.dims().t, hidden = pass_.dims().h;
  for (int layer_idx = 0; layer_idx <= shape.layers; ++layer_idx) {
    xs_.push_back(std::make_unique<Tensor<Bf16>>(tokens * hidden));
  }
  for (int layer_idx = 0; layer_idx < shape.layers; ++layer_idx) {
    saved_.push_back(std::make_unique<LayerActivations>(pass_.dims()));
  }
  GP_CUDA(cudaMemcpy(tokens_.ptr, batch_.tokens.data(), tokens * sizeof(int), cudaMemcpyHostToDevice));
  GP_CUDA(cudaMemcpy(targets_.ptr, batch_.targets.data(), tokens * sizeof(int), cudaMemcpyHostToDevice));
  fill(seed);
}

void TrainingStep::fill(unsigned seed) {
  const LayerDims& n = pass_.dims();
  const std::size_t table = z(shape_.vocab) * n.h;
  const LayerSizes sizes(shape_.layer);
  unsigned next_seed = seed;
  auto draw = [&](std::size_t offset, std::size_t count, float scale, float center) {
    fill_uniform(master_.get() + offset, Elem::f32, count, {++next_seed, scale, center});
  };
  // 4× the layers' scale: logits of std ≈ 1–2, so the loss depends visibly on the targets.
  const float head_scale = 4 * fan_in_scale(static_cast<int>(n.h));
  draw(layout_.embedding, table, 1, 0);
  draw(layout_.head, table, head_scale, 0);
  for (const LayerOffsets& o : layout_.layers) {
    draw(o.wqkv, sizes.wqkv, fan_in_scale(static_cast<int>(n.h)), 0);
    draw(o.wo, sizes.wo, fan_in_scale(static_cast<int>(n.q)), 0);
    draw(o.wgu, sizes.wgu, fan_in_scale(static_cast<int>(n.h)), 0);
    draw(o.wd, sizes.wd, fan_in_scale(static_cast<int>(n.f)), 0);
    draw(o.norm1, sizes.norm, 0.125f, 1);
    draw(o.norm2, sizes.norm, 0.125f, 1);
  }
  draw(layout_.final_norm, sizes.norm, 0.125f, 1);
  fill_uniform(m_.get(), Elem::f32, layout_.total, {++next_seed, std::ldexp(1.0f, -10), 0});
  fill_uniform(v_.get(), Elem::f32, layout_.total, {++next_seed, std::ldexp(1.0f, -21), std::ldexp(1.0f, -20)});
  to_bf16(master_.get(), params_.get(), layout_.total);
  GP_CUDA(cudaDeviceSynchronize());
}

LayerWeightPtrs TrainingStep::layer_weights(std::size_t layer_idx) const {
  const LayerOffsets& o = layout_.layers[layer_idx];
  const Bf16* p = params_.get();
  return {p + o.wqkv, p + o.wo, p + o.wgu, p + o.wd, p + o.norm1, p + o.norm2};
}

LayerGradPtrs TrainingStep::layer_grads(std::size_t layer_idx) const {
  const LayerOffsets& o = layout_.layers[layer_idx];
  float* g = grads_.get();
  return {g + o.wqkv, g + o.wo, g + o.wgu, g + o.wd, g + o.norm1, g + o.norm2};
}

void TrainingStep::forward() {
  const int t = static_cast<int>(pass_.dims().t), h = static_cast<int>(pass_.dims().h);
  embedding_forward(params_.get() + layout_.embedding, tokens_.ptr, xs_[0]->get(), t, h);
  for (std::size_t layer_idx = 0; layer_idx < saved_.size(); ++layer_idx) {
    pass_.forward(layer_weights(layer_idx), xs_[layer_idx]->get(), *saved_[layer_idx], xs_[layer_idx + 1]->get());
  }
  rmsnorm_forward(xs_.back()->get(), params_.get() + layout_.final_norm, xnf_.get(), rstdf_.get(), t, h);
  logits_mm_.run(xnf_.get(), params_.get() + layout_.head, logits_.get());
  cross_entropy_forward(logits_.get(), targets_.ptr, lse_.get(), losses_.get(), t, shape_.vocab);
  mean_of(losses_.get(), t, loss_.get());
}

void TrainingStep::backward() {
  const int t = static_cast<int>(pass_.dims().t), h = static_cast<int>(pass_.dims().h);
  float* g = grads_.get();
  cross_entropy_backward(logits_.get(), targets_.ptr, lse_.get(), dlogits_.get(), t, shape_.vocab);
  dxnf_mm_.run(dlogits_.get(), params_.get() + layout_.head, dxnf_.get());
  dhead_mm_.run(dlogits_.get(), xnf_.get(), g + layout_.head);
  // The final norm has no residual beside it: its dx is the last layer's whole output gradient.
  rmsnorm_backward(xs_.back()->get(), params_.get() + layout_.final_norm, rstdf_.get(), dxnf_.get(), nullptr,
                   dx_a_.get(), t, h);
  GP_CUDA(cudaMemsetAsync(g + layout_.final_norm, 0, pass_.dims().h * sizeof(float), nullptr));
  rmsnorm_weight_grad(xs_.back()->get(), rstdf_.get(), dxnf_.get(), g + layout_.final_norm, t, h);
  Bf16* dout = dx_a_.get();
  Bf16* dx = dx_b_.get();
  for (std::size_t layer_idx = saved_.size(); layer_idx-- > 0;) {
    pass_.backward(layer_weights(layer_idx), xs_[layer_idx]->get(), *saved_[layer_idx], dout, layer_grads(layer_idx),
                   dx);
    std::swap(dout, dx);  // this layer's dx is the next one down's dout
  }
  // dout now holds the gradient of the embedding's output; rows of tokens absent from the
  // batch get none, so the table's gradient is zeroed first (Megatron zeroes its grad buffer).
  const std::size_t table = z(shape_.vocab) * pass_.dims().h;
  GP_CUDA(cudaMemsetAsync(g + layout_.embedding, 0, table * sizeof(float), nullptr));
  embedding_backward(tokens_.ptr, dout, g + layout_.embedding, t, h);
}

void TrainingStep::optimizer_step(const AdamWConfig& config) {
  ++steps_done_;
  const AdamWFactors f = adamw_factors(config, steps_done_);
  const auto fp32 = [](double v) { return static_cast<float>(v); };
  const AdamWArgs args{fp32(f.lr),           fp32(f.beta1),           fp32(f.one_minus_beta1),
                       fp32(f.beta2),        fp32(f.one_minus_beta2), fp32(f.eps),
                       fp32(f.weight_decay), fp32(f.bias_correction1), fp32(f.bias_correction2)};
  adamw_update(master_.get(), grads_.get(), m_.get(), v_.get(), params_.get(), layout_.total, layout_.decayed, args);
}

std::vector<TrainingStep::Buffer> TrainingStep::buffers() const {
  std::vector<Buffer> out = {{"loss", loss_.get(), Elem::f32, loss_.count},
                             {"per-token losses", losses_.get(), Elem::f32, losses_.count},
                             {"logits", logits_.get(), Elem::f32, logits_.count},
                             {"dlogits", dlogits_.get(), Elem::bf16, dlogits_.count}};
  for (std::size_t idx = 0; idx < xs_.size(); ++idx) {
    out.push_back({fmt::format("layer {} input", idx), xs_[idx]->get(), Elem::bf16, xs_[idx]->count});
  }
  out.back().name = "last layer output";
  for (const auto& [name, tensor] : {std::pair{"gradients", &grads_}, std::pair{"master weights", &master_},
                                     std::pair{"Adam m", &m_}, std::pair{"Adam v", &v_}}) {
    out.push_back({name, tensor->get(), Elem::f32, tensor->count});
  }
  out.push_back({"bf16 weights", params_.get(), Elem::bf16, params_.count});
  return out;
}

}  // namespace gpuplan::cuda
