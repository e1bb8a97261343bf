// The kernels a training step adds around the layers (train_step.cpp): embedding gather and
// its fp32 scatter-add gradient, softmax cross-entropy (fp32, mean over tokens) forward and
// backward, and the fused mixed-precision AdamW update. Default stream, like layer_kernels.h.
#pragma once

#include <cstddef>

#include "layer_kernels.h"

namespace gpuplan::cuda {

// x[t, :] = table[tokens[t], :] for a [vocab, hidden] table.
void embedding_forward(const Bf16* table, const int* tokens, Bf16* x, int token_count, int hidden);
// dtable[tokens[t], :] += dx[t, :] in fp32 (atomics: a token may repeat); dtable zeroed by the caller.
void embedding_backward(const int* tokens, const Bf16* dx, float* dtable, int token_count, int hidden);

// Per row of logits [rows, vocab]: lse = log Σ exp(logits) (kept for backward) and
// loss = lse − logits[target]; one pass per row with a running max and sum (Milakov &
// Gimelshein 2018, "Online normalizer calculation for softmax").
void cross_entropy_forward(const float* logits, const int* targets, float* lse, float* losses, int rows, int vocab);
// out[0] = mean of `count` values (one block).
void mean_of(const float* values, int count, float* out);
// dlogits = (exp(logits − lse) − onehot(target)) / rows, the gradient of the mean loss, in
// bf16 for the LM head's backward GEMMs (Megatron computes it in fp32 and casts the same way).
void cross_entropy_backward(const float* logits, const int* targets, const float* lse, Bf16* dlogits, int rows,
                            int vocab);

// The factors of one AdamW step, as calibration/adamw_reference.h defines them, in fp32.
struct AdamWArgs {
  float lr, beta1, one_minus_beta1, beta2, one_minus_beta2, eps, weight_decay;
  float bias_correction1, bias_correction2;
};
// Over `count` flat fp32 elements: m and v updated from grad, then the master weight
// (decoupled weight decay on elements [0, decayed) only), then its bf16 copy refreshed:
// one read of grad, master, m, v and one write of master, m, v and the copy per parameter.
void adamw_update(float* master, const float* grad, float* m, float* v, Bf16* params, std::size_t count,
                  std::size_t decayed, const AdamWArgs& args);
// dst = bf16(src): the first bf16 copy of freshly drawn master weights.
void to_bf16(const float* src, Bf16* dst, std::size_t count);

}  // namespace gpuplan::cuda
