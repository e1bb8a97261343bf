#include "bench_support/step_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include <fmt/format.h>

#include "calibration/step_layout.h"
#include "core/error.h"

namespace gpuplan {
namespace {

std::size_t z(int v) { return static_cast<std::size_t>(v); }

// splitmix64 (Steele et al. 2014): consecutive inputs give independent-looking outputs.
std::uint64_t splitmix64(std::uint64_t h) {
  h += 0x9E3779B97F4A7C15ull;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

template <typename Weights>
auto& tensor_in(Weights& w, const StepTensor& t) {
  switch (t.kind) {
    case StepTensor::Kind::embedding: return w.embedding;
    case StepTensor::Kind::head: return w.head;
    case StepTensor::Kind::final_norm: return w.final_norm;
    case StepTensor::Kind::layer: break;
  }
  GP_ASSERT(t.layer_idx >= 0 && z(t.layer_idx) < w.layers.size(), "no such layer");
  return layer_weight(w.layers[z(t.layer_idx)], t.which);
}

}  // namespace

StepBatch step_batch(const StepShape& shape, unsigned seed) {
  GP_ASSERT(shape.vocab > 0, "a batch needs a vocabulary");
  const std::size_t tokens = z(shape.layer.seq) * z(shape.layer.batch);
  const auto vocab = static_cast<std::uint64_t>(shape.vocab);
  StepBatch b;
  b.tokens.resize(tokens);
  b.targets.resize(tokens);
  for (std::size_t t = 0; t < tokens; ++t) {
    const std::uint64_t key = (static_cast<std::uint64_t>(seed) << 33) + 2 * static_cast<std::uint64_t>(t);
    b.tokens[t] = static_cast<int>(splitmix64(key) % vocab);
    b.targets[t] = static_cast<int>(splitmix64(key + 1) % vocab);
  }
  return b;
}

// log Σ exp(x) computed around the row's maximum, so no exp overflows.
double cross_entropy_reference(const std::vector<double>& logits, const std::vector<int>& targets, int vocab,
                               std::vector<double>* dlogits) {
  const std::size_t rows = targets.size(), width = z(vocab);
  GP_ASSERT(logits.size() == rows * width && rows > 0, "logits must be [targets, vocab]");
  if (dlogits) dlogits->assign(logits.size(), 0.0);
  double total = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const double* row = &logits[r * width];
    const double max_logit = *std::max_element(row, row + width);
    double sum = 0;
    for (std::size_t v = 0; v < width; ++v) sum += std::exp(row[v] - max_logit);
    const double log_sum = std::log(sum) + max_logit;
    GP_ASSERT(targets[r] >= 0 && z(targets[r]) < width, "a target outside the vocabulary");
    total += log_sum - row[z(targets[r])];
    if (dlogits) {
      for (std::size_t v = 0; v < width; ++v) {
        const double onehot = v == z(targets[r]) ? 1.0 : 0.0;
        (*dlogits)[r * width + v] = (std::exp(row[v] - log_sum) - onehot) / static_cast<double>(rows);
      }
    }
  }
  return total / static_cast<double>(rows);
}

double step_loss_reference(const StepShape& shape, const StepBatch& batch, const StepWeights& w) {
  const std::size_t tokens = batch.tokens.size(), hidden = z(shape.layer.hidden), vocab = z(shape.vocab);
  GP_ASSERT(w.layers.size() == z(shape.layers), "one LayerWeights per layer");
  std::vector<double> x(tokens * hidden);
  for (std::size_t t = 0; t < tokens; ++t) {
    std::copy_n(&w.embedding[z(batch.tokens[t]) * hidden], hidden, &x[t * hidden]);
  }
  for (const LayerWeights& layer : w.layers) x = layer_forward_reference(shape.layer, x, layer);
  const std::vector<double> logits =
      linear_reference(rmsnorm_reference(x, w.final_norm, tokens, hidden), w.head, tokens, hidden, vocab);
  return cross_entropy_reference(logits, batch.targets, shape.vocab);
}

StepWeights unpack_step_weights(const StepShape& shape, const std::vector<double>& flat) {
  const StepLayout layout = step_layout(shape);
  const LayerSizes sizes(shape.layer);
  GP_ASSERT(flat.size() == layout.total, "a flat buffer must hold every parameter");
  const std::size_t table = z(shape.vocab) * z(shape.layer.hidden);
  auto slice = [&](std::size_t at, std::size_t count) {
    return std::vector<double>(flat.begin() + static_cast<std::ptrdiff_t>(at),
                               flat.begin() + static_cast<std::ptrdiff_t>(at + count));
  };
  StepWeights w;
  w.embedding = slice(layout.embedding, table);
  w.head = slice(layout.head, table);
  for (const LayerOffsets& o : layout.layers) {
    w.layers.push_back({slice(o.wqkv, sizes.wqkv), slice(o.wo, sizes.wo), slice(o.wgu, sizes.wgu),
                        slice(o.wd, sizes.wd), slice(o.norm1, sizes.norm), slice(o.norm2, sizes.norm)});
  }
  w.final_norm = slice(layout.final_norm, sizes.norm);
  return w;
}

std::vector<StepTensor> all_step_tensors(const StepShape& shape) {
  std::vector<StepTensor> out = {{StepTensor::Kind::embedding}, {StepTensor::Kind::head},
                                 {StepTensor::Kind::final_norm}};
  for (int layer_idx = 0; layer_idx < shape.layers; ++layer_idx) {
    for (LayerTensor which : kAllLayerTensors) {
      if (which != LayerTensor::x) out.push_back({StepTensor::Kind::layer, layer_idx, which});
    }
  }
  return out;
}

std::string step_tensor_name(const StepTensor& t) {
  switch (t.kind) {
    case StepTensor::Kind::embedding: return "dE";
    case StepTensor::Kind::head: return "dW_head";
    case StepTensor::Kind::final_norm: return "dg_final_norm";
    case StepTensor::Kind::layer: break;
  }
  return fmt::format("layer {} {}", t.layer_idx, layer_tensor_name(t.which));
}

std::vector<double>& step_tensor(StepWeights& w, const StepTensor& t) { return tensor_in(w, t); }
const std::vector<double>& step_tensor(const StepWeights& w, const StepTensor& t) { return tensor_in(w, t); }

double step_directional_derivative(const StepShape& shape, const StepBatch& batch, const StepWeights& w,
                                   const StepTensor& tensor, const std::vector<double>& direction, double step) {
  auto loss_at = [&](double epsilon) {
    StepWeights moved = w;
    std::vector<double>& t = step_tensor(moved, tensor);
    GP_ASSERT(t.size() == direction.size(), "a direction must have its tensor's size");
    for (std::size_t i = 0; i < t.size(); ++i) t[i] += epsilon * direction[i];
    return step_loss_reference(shape, batch, moved);
  };
  return (loss_at(step) - loss_at(-step)) / (2 * step);
}

StepReferenceCheck check_step_against_reference(const StepShape& shape, const StepBatch& batch, const StepWeights& w,
                                                double device_loss, const StepWeights& device_grads,
                                                const std::vector<StepTensor>& tensors) {
  constexpr double kLossLimit = 2e-3;
  constexpr double kGradientLimit = 5e-2;
  constexpr int kDirections = 3;
  constexpr double kStep = 1e-4;
  StepReferenceCheck result;
  const double ref = step_loss_reference(shape, batch, w);
  const double loss_err = std::abs(device_loss - ref) / std::abs(ref);
  result.correct = loss_err <= kLossLimit;  // false for NaN
  result.check = fmt::format("loss {:.6g} against the reference's {:.6g}: relative error {:.2e} (limit {:.0e})",
                             device_loss, ref, loss_err, kLossLimit);

  std::mt19937 rng(2025);
  for (const StepTensor& tensor : tensors) {
    const std::vector<double>& g = step_tensor(device_grads, tensor);
    GP_ASSERT(g.size() == step_tensor(w, tensor).size(), "a gradient must have its tensor's size");
    const double worst = worst_directional_error(g, kDirections, rng, [&](const std::vector<double>& v) {
      return step_directional_derivative(shape, batch, w, tensor, v, kStep);
    });
    result.correct = result.correct && worst <= kGradientLimit;
    result.check += fmt::format("; {} {:.2e}", step_tensor_name(tensor), worst);
  }
  result.check += fmt::format(" of ‖g‖ against finite differences on {} directions (limit {:.0e})", kDirections,
                              kGradientLimit);
  return result;
}

}  // namespace gpuplan
