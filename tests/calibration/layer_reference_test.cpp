// The CPU reference of gpuplan-bench's transformer layer, and the check that judges a device
// against it: properties of the forward pass derived by hand, and a check that accepts exact
// gradients and refuses a missing term.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "bench_support/layer_reference.h"
#include "calibration/reference_test_util.h"

namespace gpuplan {
namespace {

// hidden 16, 2 query heads sharing 1 KV head of width 8, FFN 16, 2 sequences of 4 tokens.
const LayerShape kTiny{"tiny", 16, 2, 1, 16, 4, 2};

using testing::random_vector;

LayerWeights random_layer_weights(const LayerShape& s) {
  const std::size_t h = 16, d = 8, ffn = 16;
  const std::size_t qkv = (2 + 2 * 1) * d;
  LayerWeights w;
  w.wqkv = random_vector(qkv * h, 0.5, 1);
  w.wo = random_vector(h * 2 * d, 0.5, 2);
  w.wgu = random_vector(2 * ffn * h, 0.5, 3);
  w.wd = random_vector(h * ffn, 0.5, 4);
  w.norm1 = random_vector(h, 0.2, 5);
  w.norm2 = random_vector(h, 0.2, 6);
  for (double& g : w.norm1) g += 1;
  for (double& g : w.norm2) g += 1;
  EXPECT_EQ(s.hidden, 16);
  return w;
}

std::vector<double> tiny_x() { return random_vector(8 * 16, 1.0, 7); }

TEST(LayerReference, WithoutOutputProjectionsTheLayerIsTheIdentity) {
  LayerWeights w = random_layer_weights(kTiny);
  std::fill(w.wo.begin(), w.wo.end(), 0.0);
  std::fill(w.wd.begin(), w.wd.end(), 0.0);
  const auto x = tiny_x();
  const auto out = layer_forward_reference(kTiny, x, w);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_DOUBLE_EQ(out[i], x[i]);
}

TEST(LayerReference, ATokenSeesOnlyEarlierTokensOfItsOwnSequence) {
  const LayerWeights w = random_layer_weights(kTiny);
  const auto x = tiny_x();
  auto moved = x;
  for (std::size_t i = 3 * 16; i < 4 * 16; ++i) moved[i] += 0.5;  // last token of sequence 0
  const auto a = layer_forward_reference(kTiny, x, w);
  const auto b = layer_forward_reference(kTiny, moved, w);
  for (std::size_t i = 0; i < 3 * 16; ++i) EXPECT_DOUBLE_EQ(a[i], b[i]);        // earlier tokens
  for (std::size_t i = 4 * 16; i < 8 * 16; ++i) EXPECT_DOUBLE_EQ(a[i], b[i]);   // sequence 1
  EXPECT_NE(a[3 * 16], b[3 * 16]);
}

TEST(LayerReference, TheFirstTokenAttendsOnlyToItsOwnValue) {
  // Position 0 sees one key, so softmax gives it weight 1 and attention returns V: with the
  // MLP off (gate = 0, so SiLU(0) · up = 0), out = x + W_o · [V, V] for V = W_v · RMSNorm(x) · g.
  LayerWeights w = random_layer_weights(kTiny);
  std::fill(w.wgu.begin(), w.wgu.end(), 0.0);
  const auto x = tiny_x();
  const auto out = layer_forward_reference(kTiny, x, w);
  double sum_sq = 0;
  for (std::size_t i = 0; i < 16; ++i) sum_sq += x[i] * x[i];
  const double rstd = 1 / std::sqrt(sum_sq / 16 + kLayerNormEps);
  std::vector<double> v(8, 0.0);
  for (std::size_t j = 0; j < 8; ++j) {
    for (std::size_t i = 0; i < 16; ++i) v[j] += w.wqkv[(24 + j) * 16 + i] * x[i] * rstd * w.norm1[i];  // V rows 24..31
  }
  for (std::size_t o = 0; o < 16; ++o) {
    double expected = x[o];
    for (std::size_t c = 0; c < 16; ++c) expected += w.wo[o * 16 + c] * v[c % 8];  // both heads read the one V
    EXPECT_NEAR(out[o], expected, 1e-12);
  }
}

TEST(LayerReference, DirectionalDerivativeOfTheIdentityLayerIsDoutDotV) {
  LayerWeights w = random_layer_weights(kTiny);
  std::fill(w.wo.begin(), w.wo.end(), 0.0);
  std::fill(w.wd.begin(), w.wd.end(), 0.0);
  const auto x = tiny_x();
  const auto dout = random_vector(x.size(), 1.0, 8);
  const auto v = random_vector(x.size(), 1.0, 9);
  double expected = 0;
  for (std::size_t i = 0; i < x.size(); ++i) expected += dout[i] * v[i];
  EXPECT_NEAR(layer_directional_derivative(kTiny, x, w, dout, LayerTensor::x, v, 1e-4), expected, 1e-9);
}

// Gradients by finite differences, one element at a time: what a correct device would return.
LayerGradients finite_difference_gradients(const std::vector<double>& x, const LayerWeights& w,
                                           const std::vector<double>& dout) {
  LayerGradients g;
  auto fill = [&](LayerTensor which, std::size_t size, std::vector<double>& out) {
    out.resize(size);
    std::vector<double> one_hot(size, 0.0);
    for (std::size_t i = 0; i < size; ++i) {
      one_hot[i] = 1;
      out[i] = layer_directional_derivative(kTiny, x, w, dout, which, one_hot, 1e-5);
      one_hot[i] = 0;
    }
  };
  fill(LayerTensor::x, x.size(), g.dx);
  fill(LayerTensor::wqkv, w.wqkv.size(), g.dw.wqkv);
  fill(LayerTensor::wo, w.wo.size(), g.dw.wo);
  fill(LayerTensor::wgu, w.wgu.size(), g.dw.wgu);
  fill(LayerTensor::wd, w.wd.size(), g.dw.wd);
  fill(LayerTensor::norm1, w.norm1.size(), g.dw.norm1);
  fill(LayerTensor::norm2, w.norm2.size(), g.dw.norm2);
  return g;
}

TEST(LayerReference, CheckAcceptsTheTruthAndRefusesAMissingTerm) {
  const LayerWeights w = random_layer_weights(kTiny);
  const auto x = tiny_x();
  const auto dout = random_vector(x.size(), 1.0, 10);
  const auto out = layer_forward_reference(kTiny, x, w);
  const LayerGradients grads = finite_difference_gradients(x, w, dout);
  const LayerReferenceCheck good = check_layer_against_reference(kTiny, x, w, dout, out, grads);
  EXPECT_TRUE(good.correct) << good.check;
  EXPECT_NE(good.check.find("dW_gate_up"), std::string::npos) << good.check;

  // A forward pass that forgot the MLP.
  LayerWeights no_mlp = w;
  std::fill(no_mlp.wd.begin(), no_mlp.wd.end(), 0.0);
  const LayerReferenceCheck bad_forward =
      check_layer_against_reference(kTiny, x, w, dout, layer_forward_reference(kTiny, x, no_mlp), grads);
  EXPECT_FALSE(bad_forward.correct);
  EXPECT_NE(bad_forward.check.find("forward: RMS error"), std::string::npos);

  // A backward pass that never wrote dW_o, and one whose dx lacks the residual path.
  LayerGradients no_dwo = grads;
  std::fill(no_dwo.dw.wo.begin(), no_dwo.dw.wo.end(), 0.0);
  EXPECT_FALSE(check_layer_against_reference(kTiny, x, w, dout, out, no_dwo).correct);
  LayerGradients no_residual = grads;
  for (std::size_t i = 0; i < dout.size(); ++i) no_residual.dx[i] -= dout[i];
  EXPECT_FALSE(check_layer_against_reference(kTiny, x, w, dout, out, no_residual).correct);
  // Not a number anywhere fails.
  LayerGradients nan = grads;
  nan.dw.norm2[3] = NAN;
  EXPECT_FALSE(check_layer_against_reference(kTiny, x, w, dout, out, nan).correct);
}

}  // namespace
}  // namespace gpuplan
