// The layer of layer_bench.h, alone: its own input, weights, output gradient and fp32 weight
// gradients around one LayerPass (layer_pass.h holds the forward and backward).
#include "layer_bench.h"

#include <fmt/format.h>

#include "bench_support/layer_reference.h"
#include "layer_pass.h"

namespace gpuplan::cuda {
namespace {

class TransformerLayer {
 public:
  explicit TransformerLayer(const LayerShape& shape)
      : pass_(lt_, shape), saved_(pass_.dims()), x_(t() * h()), wqkv_(n().q3 * h()), wo_(h() * n().q),
        wgu_(2 * n().f * h()), wd_(h() * n().f), g1_(h()), g2_(h()), dout_(t() * h()), out_(t() * h()),
        dx_(t() * h()), dwqkv_(wqkv_.count), dwo_(wo_.count), dwgu_(wgu_.count), dwd_(wd_.count), dg1_(h()),
        dg2_(h()) {}

  // Random inputs, weights around 1/sqrt(fan-in), norm weights around 1, and a random output
  // gradient; each tensor reproducible on the host from its FillSpec.
  void fill(unsigned seed) {
    for (auto& [tensor, count, fill_spec] : inputs(seed)) fill_uniform(tensor, Elem::bf16, count, fill_spec);
  }

  struct Input {
    Bf16* tensor;
    std::size_t count;
    FillSpec fill;
  };
  std::vector<Input> inputs(unsigned seed) const {
    return {{x_.get(), x_.count, {seed, 1, 0}},
            {wqkv_.get(), wqkv_.count, {seed + 1, fan_in_scale(static_cast<int>(h())), 0}},
            {wo_.get(), wo_.count, {seed + 2, fan_in_scale(static_cast<int>(n().q)), 0}},
            {wgu_.get(), wgu_.count, {seed + 3, fan_in_scale(static_cast<int>(h())), 0}},
            {wd_.get(), wd_.count, {seed + 4, fan_in_scale(static_cast<int>(n().f)), 0}},
            {g1_.get(), g1_.count, {seed + 5, 0.125f, 1}},
            {g2_.get(), g2_.count, {seed + 6, 0.125f, 1}},
            {dout_.get(), dout_.count, {seed + 7, 1, 0}}};
  }

  void forward() { pass_.forward(weights(), x_.get(), saved_, out_.get()); }
  void backward() {
    pass_.backward(weights(), x_.get(), saved_, dout_.get(),
                   {dwqkv_.get(), dwo_.get(), dwgu_.get(), dwd_.get(), dg1_.get(), dg2_.get()}, dx_.get());
  }

  // The output and every gradient: name, pointer, element type, count.
  struct Result {
    const char* name;
    const void* data;
    Elem elem;
    std::size_t count;
  };
  std::vector<Result> results() const {
    return {{"out", out_.get(), Elem::bf16, out_.count},       {"dx", dx_.get(), Elem::bf16, dx_.count},
            {"dW_qkv", dwqkv_.get(), Elem::f32, dwqkv_.count}, {"dW_o", dwo_.get(), Elem::f32, dwo_.count},
            {"dW_gate_up", dwgu_.get(), Elem::f32, dwgu_.count}, {"dW_down", dwd_.get(), Elem::f32, dwd_.count},
            {"dg_attn_norm", dg1_.get(), Elem::f32, dg1_.count}, {"dg_mlp_norm", dg2_.get(), Elem::f32, dg2_.count}};
  }

 private:
  const LayerDims& n() const { return pass_.dims(); }
  std::size_t t() const { return n().t; }
  std::size_t h() const { return n().h; }
  LayerWeightPtrs weights() const {
    return {wqkv_.get(), wo_.get(), wgu_.get(), wd_.get(), g1_.get(), g2_.get()};
  }

  LtContext lt_;
  LayerPass pass_;
  LayerActivations saved_;
  Tensor<Bf16> x_, wqkv_, wo_, wgu_, wd_, g1_, g2_, dout_, out_, dx_;
  Tensor<float> dwqkv_, dwo_, dwgu_, dwd_, dg1_, dg2_;
};

std::vector<double> host_copy(const FillSpec& fill, std::size_t count) {
  std::vector<double> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = stored_uniform(Elem::bf16, i, fill);
  return out;
}

}  // namespace

LayerRun check_transformer_layer(const LayerShape& shape, unsigned seed) {
  TransformerLayer layer(shape);
  layer.fill(seed);
  layer.forward();
  layer.backward();
  GP_CUDA(cudaDeviceSynchronize());

  // The same inputs on the host, exactly as the device holds them.
  const auto in = layer.inputs(seed);
  const std::vector<double> x = host_copy(in[0].fill, in[0].count);
  LayerWeights w;
  w.wqkv = host_copy(in[1].fill, in[1].count);
  w.wo = host_copy(in[2].fill, in[2].count);
  w.wgu = host_copy(in[3].fill, in[3].count);
  w.wd = host_copy(in[4].fill, in[4].count);
  w.norm1 = host_copy(in[5].fill, in[5].count);
  w.norm2 = host_copy(in[6].fill, in[6].count);
  const std::vector<double> dout = host_copy(in[7].fill, in[7].count);

  const auto results = layer.results();
  auto get = [&](std::size_t idx) { return download(results[idx].data, results[idx].elem, results[idx].count); };
  LayerGradients grads;
  grads.dx = get(1);
  grads.dw.wqkv = get(2);
  grads.dw.wo = get(3);
  grads.dw.wgu = get(4);
  grads.dw.wd = get(5);
  grads.dw.norm1 = get(6);
  grads.dw.norm2 = get(7);
  const LayerReferenceCheck check = check_layer_against_reference(shape, x, w, dout, get(0), grads);
  LayerRun run;
  run.correct = check.correct;
  run.check = check.check;
  return run;
}

LayerRun time_transformer_layer(const LayerShape& shape, int runs, unsigned seed) {
  TransformerLayer layer(shape);
  layer.fill(seed);
  LayerRun run;
  run.fwd_times_s = time_runs([&] { layer.forward(); }, runs);
  run.bwd_times_s = time_runs([&] { layer.backward(); }, runs);
  unsigned long long bad = 0;
  std::string where;
  for (const auto& r : layer.results()) {
    const unsigned long long n = count_nonfinite(r.data, r.elem, r.count);
    if (n > 0) where += fmt::format(" {} in {}", n, r.name);
    bad += n;
  }
  run.correct = bad == 0;
  run.check = bad == 0 ? "output and every gradient finite" : "non-finite values:" + where;
  return run;
}

}  // namespace gpuplan::cuda
