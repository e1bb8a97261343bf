#include "bench_support/layer_reference.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {
namespace {

using Matrix = std::vector<double>;

std::size_t z(int v) { return static_cast<std::size_t>(v); }

// Causal softmax attention over the packed [tokens, (heads + 2·kv_heads)·head_dim] projections.
Matrix attention(const LayerShape& s, const Matrix& qkv) {
  const std::size_t d = z(s.head_dim()), heads = z(s.heads), kv = z(s.kv_heads), seq = z(s.seq);
  const std::size_t width = (heads + 2 * kv) * d;
  const std::size_t rep = heads / kv;
  const double scale = 1 / std::sqrt(static_cast<double>(d));
  Matrix out(z(s.batch) * seq * heads * d, 0.0);
  std::vector<double> p(seq);
  for (std::size_t b = 0; b < z(s.batch); ++b) {
    for (std::size_t h = 0; h < heads; ++h) {
      const std::size_t k_col = heads * d + (h / rep) * d;
      const std::size_t v_col = (heads + kv) * d + (h / rep) * d;
      for (std::size_t q_pos = 0; q_pos < seq; ++q_pos) {
        const double* q = &qkv[(b * seq + q_pos) * width + h * d];
        double max_score = -INFINITY;
        for (std::size_t k_pos = 0; k_pos <= q_pos; ++k_pos) {
          const double* k = &qkv[(b * seq + k_pos) * width + k_col];
          double dot = 0;
          for (std::size_t j = 0; j < d; ++j) dot += q[j] * k[j];
          p[k_pos] = dot * scale;
          max_score = std::max(max_score, p[k_pos]);
        }
        double sum = 0;
        for (std::size_t k_pos = 0; k_pos <= q_pos; ++k_pos) sum += p[k_pos] = std::exp(p[k_pos] - max_score);
        double* o = &out[(b * seq + q_pos) * heads * d + h * d];
        for (std::size_t k_pos = 0; k_pos <= q_pos; ++k_pos) {
          const double* v = &qkv[(b * seq + k_pos) * width + v_col];
          for (std::size_t j = 0; j < d; ++j) o[j] += p[k_pos] / sum * v[j];
        }
      }
    }
  }
  return out;
}

// The weight `which` names, of a const or mutable LayerWeights.
template <typename Weights>
auto& weight_of(Weights& w, LayerTensor which) {
  switch (which) {
    case LayerTensor::wqkv: return w.wqkv;
    case LayerTensor::wo: return w.wo;
    case LayerTensor::wgu: return w.wgu;
    case LayerTensor::wd: return w.wd;
    case LayerTensor::norm1: return w.norm1;
    case LayerTensor::norm2: return w.norm2;
    case LayerTensor::x: break;
  }
  GP_ASSERT(false, "the layer's input is not a weight");
}

std::vector<double>& tensor_of(std::vector<double>& x, LayerWeights& w, LayerTensor which) {
  return which == LayerTensor::x ? x : weight_of(w, which);
}

const std::vector<double>& gradient_of(const LayerGradients& g, LayerTensor which) {
  return which == LayerTensor::x ? g.dx : weight_of(g.dw, which);
}

}  // namespace

// y[rows, out] = x[rows, in] · wᵀ, w being [out, in].
std::vector<double> linear_reference(const std::vector<double>& x, const std::vector<double>& w, std::size_t rows,
                                     std::size_t in, std::size_t out) {
  GP_ASSERT(x.size() == rows * in && w.size() == out * in, "linear: sizes do not match the shape");
  std::vector<double> y(rows * out, 0.0);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t o = 0; o < out; ++o) {
      double acc = 0;
      for (std::size_t i = 0; i < in; ++i) acc += x[r * in + i] * w[o * in + i];
      y[r * out + o] = acc;
    }
  }
  return y;
}

// RMSNorm (Zhang & Sennrich 2019), as in Llama: x / sqrt(mean(x²) + eps) · g.
std::vector<double> rmsnorm_reference(const std::vector<double>& x, const std::vector<double>& g, std::size_t rows,
                                      std::size_t width) {
  std::vector<double> y(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    double sum_sq = 0;
    for (std::size_t i = 0; i < width; ++i) sum_sq += x[r * width + i] * x[r * width + i];
    const double rstd = 1 / std::sqrt(sum_sq / static_cast<double>(width) + kLayerNormEps);
    for (std::size_t i = 0; i < width; ++i) y[r * width + i] = x[r * width + i] * rstd * g[i];
  }
  return y;
}

std::vector<double>& layer_weight(LayerWeights& w, LayerTensor which) { return weight_of(w, which); }
const std::vector<double>& layer_weight(const LayerWeights& w, LayerTensor which) { return weight_of(w, which); }

const char* layer_tensor_name(LayerTensor t) {
  switch (t) {
    case LayerTensor::x: return "dx";
    case LayerTensor::wqkv: return "dW_qkv";
    case LayerTensor::wo: return "dW_o";
    case LayerTensor::wgu: return "dW_gate_up";
    case LayerTensor::wd: return "dW_down";
    case LayerTensor::norm1: return "dg_attn_norm";
    case LayerTensor::norm2: return "dg_mlp_norm";
  }
  return "?";
}

std::vector<double> layer_forward_reference(const LayerShape& s, const std::vector<double>& x, const LayerWeights& w) {
  const std::size_t tokens = z(s.seq) * z(s.batch), hidden = z(s.hidden), ffn = z(s.ffn);
  const std::size_t q_width = z(s.heads) * z(s.head_dim());
  const std::size_t qkv_width = q_width + 2 * z(s.kv_heads) * z(s.head_dim());
  const Matrix qkv = linear_reference(rmsnorm_reference(x, w.norm1, tokens, hidden), w.wqkv, tokens, hidden, qkv_width);
  Matrix h1 = linear_reference(attention(s, qkv), w.wo, tokens, q_width, hidden);
  for (std::size_t i = 0; i < h1.size(); ++i) h1[i] += x[i];
  const Matrix gate_up =
      linear_reference(rmsnorm_reference(h1, w.norm2, tokens, hidden), w.wgu, tokens, hidden, 2 * ffn);
  Matrix act(tokens * ffn);
  for (std::size_t t = 0; t < tokens; ++t) {
    for (std::size_t f = 0; f < ffn; ++f) {
      const double gate = gate_up[t * 2 * ffn + f];
      act[t * ffn + f] = gate / (1 + std::exp(-gate)) * gate_up[t * 2 * ffn + ffn + f];  // SiLU(gate) · up
    }
  }
  Matrix out = linear_reference(act, w.wd, tokens, ffn, hidden);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] += h1[i];
  return out;
}

double layer_directional_derivative(const LayerShape& shape, const std::vector<double>& x, const LayerWeights& w,
                                    const std::vector<double>& dout, LayerTensor which,
                                    const std::vector<double>& direction, double step) {
  auto loss_at = [&](double epsilon) {
    std::vector<double> x_moved = x;
    LayerWeights w_moved = w;
    std::vector<double>& t = tensor_of(x_moved, w_moved, which);
    GP_ASSERT(t.size() == direction.size(), "a direction must have its tensor's size");
    for (std::size_t i = 0; i < t.size(); ++i) t[i] += epsilon * direction[i];
    return reference_dot(layer_forward_reference(shape, x_moved, w_moved), dout);
  };
  return (loss_at(step) - loss_at(-step)) / (2 * step);
}

LayerReferenceCheck check_layer_against_reference(const LayerShape& shape, const std::vector<double>& x,
                                                  const LayerWeights& w, const std::vector<double>& dout,
                                                  const std::vector<double>& out, const LayerGradients& grads) {
  constexpr double kForwardLimit = 3e-2;
  constexpr double kGradientLimit = 5e-2;
  constexpr int kDirections = 3;
  constexpr double kStep = 1e-4;
  LayerReferenceCheck result;
  result.correct = true;
  const std::vector<double> ref = layer_forward_reference(shape, x, w);
  GP_ASSERT(out.size() == ref.size(), "the device output must have the reference's size");
  double err_sq = 0, delta_sq = 0;
  bool finite = true;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    finite = finite && std::isfinite(out[i]);
    err_sq += (out[i] - ref[i]) * (out[i] - ref[i]);
    delta_sq += (ref[i] - x[i]) * (ref[i] - x[i]);
  }
  const double forward_err = finite ? std::sqrt(err_sq / std::max(delta_sq, 1e-300)) : INFINITY;
  result.correct = forward_err <= kForwardLimit;
  result.check = fmt::format("forward: RMS error {:.2e} of out − x (limit {:.0e})", forward_err, kForwardLimit);

  std::mt19937 rng(2024);
  for (LayerTensor which : kAllLayerTensors) {
    const std::vector<double>& g = gradient_of(grads, which);
    std::vector<double> x_copy = x;
    LayerWeights w_copy = w;
    GP_ASSERT(g.size() == tensor_of(x_copy, w_copy, which).size(), "a gradient must have its tensor's size");
    const double worst = worst_directional_error(g, kDirections, rng, [&](const std::vector<double>& v) {
      return layer_directional_derivative(shape, x, w, dout, which, v, kStep);
    });
    const bool ok = worst <= kGradientLimit;
    result.correct = result.correct && ok;
    result.check += fmt::format("; {} {:.2e}", layer_tensor_name(which), worst);
  }
  result.check += fmt::format(" of ‖g‖ against finite differences on {} directions (limit {:.0e})", kDirections,
                              kGradientLimit);
  return result;
}

double reference_dot(const std::vector<double>& a, const std::vector<double>& b) {
  double acc = 0;
  for (std::size_t i = 0; i < a.size(); ++i) acc += a[i] * b[i];
  return acc;
}

double worst_directional_error(const std::vector<double>& g, int directions, std::mt19937& rng,
                               const std::function<double(const std::vector<double>&)>& derivative_along) {
  std::bernoulli_distribution coin(0.5);
  double g_norm = std::sqrt(reference_dot(g, g));
  if (!std::isfinite(g_norm)) g_norm = INFINITY;
  double worst = 0;
  for (int dir_idx = 0; dir_idx < directions; ++dir_idx) {
    std::vector<double> v(g.size());
    for (double& e : v) e = coin(rng) ? 1.0 : -1.0;
    const double err = std::abs(reference_dot(g, v) - derivative_along(v)) / (g_norm > 0 ? g_norm : 1e-300);
    worst = std::max(worst, std::isfinite(err) ? err : INFINITY);
  }
  return worst;
}

}  // namespace gpuplan
