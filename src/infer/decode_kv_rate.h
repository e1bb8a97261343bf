// Decode attention's KV read rate at a head dim under 128 (docs/model/inference.md §4, "Decode
// attention at a small head dim"). A decode kernel walks each sequence's cached keys once per KV
// head and, for every key, does work that does not grow with the head dim: the group's query
// heads' score, its exponential and the running max and rescale of the online softmax. Per byte of
// KV that work doubles when the head dim halves, so a head dim of 64 (gpt-oss) reads its cache
// slower than the 128 of the models the step's bandwidth was set on. Modelled as a kernel that
// costs, per key, as if it read `h0` more dims than it does: time ∝ (head_dim + h0), with h0 from
// our measurement of FlashAttention-2 decode (PyTorch SDPA, GQA 8, bf16 KV, one H200,
// data/calibration/attention/gqa-decode-h200-sxm-2026-11-28.json): at head dim 64 it reads KV at
// 0.869 of its head-dim-128 rate (median of 8 batch × context shapes; 0.71–0.93).
#pragma once

namespace gpuplan {

// The measured rate at head dim 64 over that at 128 (FlashAttention-2 decode, GQA 8, H200).
inline constexpr double kDecodeKvRateHd64OverHd128 = 0.869;

// The kernel's per-key work as extra dims read: from r = rate(64) / rate(128) =
// (128 + h0) / (2 (64 + h0)), h0 = 128 (1 − r) / (2 r − 1) = 22.7 at r = 0.869.
double decode_kv_extra_dims();

// How much longer a decode's KV read takes at `head_dim` than at the rate the step charges (set
// on head dim 128): ((head_dim + h0) / head_dim) / ((128 + h0) / 128) for 0 < head_dim < 128,
// 1 otherwise (not measured above 128) and for MLA's latent cache (`mla`: one latent per token,
// not per-head rows). 1.151 at head dim 64.
double decode_kv_time_factor(int head_dim, bool mla);

}  // namespace gpuplan
