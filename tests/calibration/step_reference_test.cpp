// The CPU reference of gpuplan-bench's training step: the cross-entropy loss and its gradient
// derived by hand, the stack's loss in cases with a closed form, the flat parameter layout,
// and a check that accepts exact gradients and refuses wrong ones.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "calibration/step_layout.h"
#include "bench_support/step_reference.h"
#include "calibration/reference_test_util.h"
#include "workload/params.h"

namespace gpuplan {
namespace {

using testing::random_vector;

// 2 layers of hidden 16 (2 query heads sharing 1 KV head of width 8, FFN 16), a vocabulary of
// 32, 2 sequences of 4 tokens.
StepShape tiny() {
  StepShape s;
  s.layer = {"tiny-step", 16, 2, 1, 16, 4, 2};
  s.layers = 2;
  s.vocab = 32;
  return s;
}

// Weights as gpuplan-bench draws them: unit embedding rows, matrices around 1/sqrt(fan-in),
// norm weights around 1, and a head 4× wider so the logits spread by ~1.
StepWeights random_step_weights(const StepShape& s, unsigned seed) {
  const StepLayout layout = step_layout(s);
  std::vector<double> flat(layout.total);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (double& e : flat) e = uniform(rng);
  StepWeights w = unpack_step_weights(s, flat);
  auto scale = [](std::vector<double>& t, double by, double offset) {
    for (double& e : t) e = offset + by * e;
  };
  scale(w.head, 4 / std::sqrt(16.0), 0);
  scale(w.final_norm, 0.125, 1);
  for (LayerWeights& l : w.layers) {
    scale(l.wqkv, 0.25, 0);
    scale(l.wo, 0.25, 0);
    scale(l.wgu, 0.25, 0);
    scale(l.wd, 0.25, 0);
    scale(l.norm1, 0.125, 1);
    scale(l.norm2, 0.125, 1);
  }
  return w;
}

TEST(StepReference, UniformLogitsLoseLnVocab) {
  // softmax of equal logits is 1/V for every class, so −log p = ln V whatever the target, and
  // the gradient is (1/V − onehot) / rows.
  const std::vector<int> targets = {3, 0, 7};
  const std::vector<double> logits(3 * 8, 0.25);
  std::vector<double> grad;
  EXPECT_NEAR(cross_entropy_reference(logits, targets, 8, &grad), std::log(8.0), 1e-15);
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t v = 0; v < 8; ++v) {
      const double want = (1.0 / 8 - (static_cast<int>(v) == targets[r] ? 1.0 : 0.0)) / 3;
      EXPECT_NEAR(grad[r * 8 + v], want, 1e-15);
    }
  }
}

TEST(StepReference, CrossEntropyGradientIsItsFiniteDifference) {
  const std::vector<int> targets = {1, 4, 4, 0};
  const std::vector<double> logits = random_vector(4 * 5, 3.0, 11);  // spread enough to matter
  std::vector<double> grad;
  cross_entropy_reference(logits, targets, 5, &grad);
  for (std::size_t i = 0; i < logits.size(); ++i) {
    auto moved = [&](double by) {
      std::vector<double> l = logits;
      l[i] += by;
      return cross_entropy_reference(l, targets, 5);
    };
    EXPECT_NEAR(grad[i], (moved(1e-6) - moved(-1e-6)) / 2e-6, 1e-8) << i;
  }
  // A large logit neither overflows nor loses the others.
  std::vector<double> big = {1000, 0};
  EXPECT_NEAR(cross_entropy_reference(big, {1}, 2), 1000, 1e-9);
}

TEST(StepReference, AZeroHeadGivesLnVocab) {
  const StepShape s = tiny();
  StepWeights w = random_step_weights(s, 1);
  std::fill(w.head.begin(), w.head.end(), 0.0);
  EXPECT_NEAR(step_loss_reference(s, step_batch(s, 3), w), std::log(32.0), 1e-12);
}

TEST(StepReference, WithIdentityLayersTheLossIsTheHeadOnTheEmbedding) {
  // With W_o = W_down = 0 each layer returns its input, so the loss is cross-entropy of
  // RMSNorm(E[token]) · g_final · headᵀ, computed here by hand.
  const StepShape s = tiny();
  StepWeights w = random_step_weights(s, 2);
  for (LayerWeights& l : w.layers) {
    std::fill(l.wo.begin(), l.wo.end(), 0.0);
    std::fill(l.wd.begin(), l.wd.end(), 0.0);
  }
  const StepBatch batch = step_batch(s, 4);
  std::vector<double> logits(8 * 32, 0.0);
  for (std::size_t t = 0; t < 8; ++t) {
    const double* e = &w.embedding[static_cast<std::size_t>(batch.tokens[t]) * 16];
    double sum_sq = 0;
    for (std::size_t i = 0; i < 16; ++i) sum_sq += e[i] * e[i];
    const double rstd = 1 / std::sqrt(sum_sq / 16 + kLayerNormEps);
    for (std::size_t v = 0; v < 32; ++v) {
      for (std::size_t i = 0; i < 16; ++i) logits[t * 32 + v] += e[i] * rstd * w.final_norm[i] * w.head[v * 16 + i];
    }
  }
  EXPECT_NEAR(step_loss_reference(s, batch, w), cross_entropy_reference(logits, batch.targets, 32), 1e-12);
}

TEST(StepReference, BatchesAreReproducibleAndSpreadOverTheVocabulary) {
  StepShape s = tiny();
  s.layer.seq = 512;
  s.layer.batch = 4;
  const StepBatch a = step_batch(s, 7);
  EXPECT_EQ(a.tokens, step_batch(s, 7).tokens);
  EXPECT_NE(a.tokens, step_batch(s, 8).tokens);
  EXPECT_NE(a.tokens, a.targets);
  std::vector<int> seen(32, 0);
  for (int id : a.tokens) ++seen[static_cast<std::size_t>(id)];
  for (int count : seen) EXPECT_GT(count, 20);  // 2048 draws over 32 ids: 64 expected each
}

TEST(StepLayout, HoldsEveryParameterOfTheModelOnceAligned) {
  // Llama-3.2-1B's shape, untied: the flat buffer is exactly the training model's parameters.
  StepShape s;
  s.layer = {"1b-class", 2048, 32, 8, 8192, 2048, 1};
  s.layers = 16;
  s.vocab = 128256;
  const StepLayout l = step_layout(s);
  EXPECT_DOUBLE_EQ(static_cast<double>(l.total), count_params(step_model(s)).total);
  const LayerSizes sizes(s.layer);
  std::size_t expect = 2 * 128256ull * 2048;  // embedding and head first
  EXPECT_EQ(l.embedding, 0u);
  EXPECT_EQ(l.head, 128256ull * 2048);
  for (const LayerOffsets& o : l.layers) {
    for (std::size_t at : {o.wqkv, o.wo, o.wgu, o.wd}) EXPECT_EQ(at % 256, 0u);  // 512 B in bf16
    EXPECT_EQ(o.wqkv, expect);
    expect += sizes.wqkv + sizes.wo + sizes.wgu + sizes.wd;
  }
  EXPECT_EQ(l.decayed, expect);  // the norms come after every matrix
  EXPECT_EQ(l.layers[0].norm1, l.decayed);
  EXPECT_EQ(l.final_norm + 2048, l.total);
}

TEST(StepReference, UnpackPutsEachFlatElementInItsTensor) {
  const StepShape s = tiny();
  const StepLayout l = step_layout(s);
  std::vector<double> flat(l.total);
  for (std::size_t i = 0; i < flat.size(); ++i) flat[i] = static_cast<double>(i);
  const StepWeights w = unpack_step_weights(s, flat);
  EXPECT_EQ(w.head[5], static_cast<double>(l.head + 5));
  EXPECT_EQ(w.layers[1].wgu[3], static_cast<double>(l.layers[1].wgu + 3));
  EXPECT_EQ(w.layers[1].norm2[0], static_cast<double>(l.layers[1].norm2));
  EXPECT_EQ(w.final_norm.back(), static_cast<double>(l.total - 1));
  EXPECT_EQ(all_step_tensors(s).size(), 3u + 2 * 6);
}

// Gradients by finite differences one element at a time: what a correct device returns.
StepWeights exact_gradients(const StepShape& s, const StepBatch& batch, const StepWeights& w) {
  StepWeights g = w;
  for (const StepTensor& tensor : all_step_tensors(s)) {
    std::vector<double>& out = step_tensor(g, tensor);
    std::vector<double> one_hot(out.size(), 0.0);
    for (std::size_t i = 0; i < out.size(); ++i) {
      one_hot[i] = 1;
      out[i] = step_directional_derivative(s, batch, w, tensor, one_hot, 1e-5);
      one_hot[i] = 0;
    }
  }
  return g;
}

TEST(StepReference, CheckAcceptsTheTruthAndRefusesAWrongLossOrGradient) {
  const StepShape s = tiny();
  const StepWeights w = random_step_weights(s, 5);
  const StepBatch batch = step_batch(s, 6);
  const double loss = step_loss_reference(s, batch, w);
  const StepWeights grads = exact_gradients(s, batch, w);
  const auto tensors = all_step_tensors(s);
  const StepReferenceCheck good = check_step_against_reference(s, batch, w, loss, grads, tensors);
  EXPECT_TRUE(good.correct) << good.check;
  EXPECT_NE(good.check.find("layer 1 dW_down"), std::string::npos) << good.check;
  EXPECT_NE(good.check.find("dW_head"), std::string::npos) << good.check;

  EXPECT_FALSE(check_step_against_reference(s, batch, w, loss * 1.01, grads, tensors).correct);
  EXPECT_FALSE(check_step_against_reference(s, batch, w, NAN, grads, tensors).correct);
  // An embedding gradient scattered to the wrong rows (each token's row moved by one).
  StepWeights shifted = grads;
  std::rotate(shifted.embedding.begin(), shifted.embedding.begin() + 16, shifted.embedding.end());
  EXPECT_FALSE(check_step_against_reference(s, batch, w, loss, shifted, tensors).correct);
  // A head gradient not divided by the token count, and a layer gradient never written.
  StepWeights unscaled = grads;
  for (double& e : unscaled.head) e *= 8;
  EXPECT_FALSE(check_step_against_reference(s, batch, w, loss, unscaled, tensors).correct);
  StepWeights missing = grads;
  std::fill(missing.layers[0].wqkv.begin(), missing.layers[0].wqkv.end(), 0.0);
  const StepReferenceCheck no_wqkv = check_step_against_reference(s, batch, w, loss, missing, tensors);
  EXPECT_FALSE(no_wqkv.correct);
  EXPECT_TRUE(check_step_against_reference(s, batch, w, loss, missing, {tensors[0], tensors[1]}).correct);
}

}  // namespace
}  // namespace gpuplan
