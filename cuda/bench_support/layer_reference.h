// The CPU reference for gpuplan-bench's transformer layer: a double-precision forward pass
// (RMSNorm, GQA causal softmax attention without RoPE, SwiGLU MLP, two residuals), and the
// check of a device's forward output and gradients against it (gradients by directional
// finite differences of the reference, so no second, hand-written backward pass is trusted).
#pragma once

#include <cstddef>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "calibration/layer_shape.h"

namespace gpuplan {

inline constexpr double kLayerNormEps = 1e-5;

// Row-major, PyTorch nn.Linear layout ([out, in]; y = x · Wᵀ).
struct LayerWeights {
  std::vector<double> wqkv;   // [(heads + 2·kv_heads)·head_dim, hidden]: Q heads, then K, then V
  std::vector<double> wo;     // [hidden, heads·head_dim]
  std::vector<double> wgu;    // [2·ffn, hidden]: gate rows, then up rows
  std::vector<double> wd;     // [hidden, ffn]
  std::vector<double> norm1;  // [hidden], before attention
  std::vector<double> norm2;  // [hidden], before the MLP
};

// The same tensors' gradients, plus the input's.
struct LayerGradients {
  std::vector<double> dx;
  LayerWeights dw;
};

// out[tokens, hidden] for x[tokens, hidden], token t = batch_idx·seq + position. Query head h
// attends with KV head h / (heads / kv_heads), as Hugging Face's repeat_kv does.
std::vector<double> layer_forward_reference(const LayerShape& shape, const std::vector<double>& x,
                                            const LayerWeights& w);

enum class LayerTensor { x, wqkv, wo, wgu, wd, norm1, norm2 };
inline constexpr LayerTensor kAllLayerTensors[] = {LayerTensor::x,  LayerTensor::wqkv,  LayerTensor::wo,
                                                   LayerTensor::wgu, LayerTensor::wd,    LayerTensor::norm1,
                                                   LayerTensor::norm2};
const char* layer_tensor_name(LayerTensor t);
// The weight tensor `which` names; LayerTensor::x is the input, not a weight.
std::vector<double>& layer_weight(LayerWeights& w, LayerTensor which);
const std::vector<double>& layer_weight(const LayerWeights& w, LayerTensor which);

// The building blocks, shared with the training step's reference (step_reference.h):
// y[rows, out] = x[rows, in] · wᵀ for w [out, in]; and RMSNorm per row, x / sqrt(mean(x²) + eps) · g.
std::vector<double> linear_reference(const std::vector<double>& x, const std::vector<double>& w, std::size_t rows,
                                     std::size_t in, std::size_t out);
std::vector<double> rmsnorm_reference(const std::vector<double>& x, const std::vector<double>& g, std::size_t rows,
                                      std::size_t width);

// d/dε of loss(θ + ε·direction in tensor `which`) at ε = 0, by a central difference of step
// `step`, where loss = Σ out · dout (so dout is the output gradient the backward pass gets).
double layer_directional_derivative(const LayerShape& shape, const std::vector<double>& x, const LayerWeights& w,
                                    const std::vector<double>& dout, LayerTensor which,
                                    const std::vector<double>& direction, double step);

struct LayerReferenceCheck {
  bool correct = false;
  std::string check;  // every comparison made and its error, for the report and the failure message
};

// The device's out and gradients (computed from these x, w and dout) against the reference:
// out − x (the layer's own contribution) within 3% relative RMS error, and for every tensor,
// on 3 random ±1 directions v, |Σ g·v − finite difference| within 5% of ‖g‖₂. Both limits
// cover bf16 storage of activations and outputs (unit roundoff 2^-8, a few roundings deep);
// a wrong or missing term is off by tens of percent.
LayerReferenceCheck check_layer_against_reference(const LayerShape& shape, const std::vector<double>& x,
                                                  const LayerWeights& w, const std::vector<double>& dout,
                                                  const std::vector<double>& out, const LayerGradients& grads);

// Σ a·b, in double.
double reference_dot(const std::vector<double>& a, const std::vector<double>& b);

// How far a gradient g is from the function's slope: the worst, over `directions` random ±1
// directions v drawn from `rng`, of |g·v − derivative_along(v)| / ‖g‖₂, where
// derivative_along(v) is a finite difference of the reference along v. Infinite when g or a
// difference is not finite (so any limit fails). Shared by the layer and step checks.
double worst_directional_error(const std::vector<double>& g, int directions, std::mt19937& rng,
                               const std::function<double(const std::vector<double>&)>& derivative_along);

}  // namespace gpuplan
