// Time of one op on one GPU: a roofline (compute at the achievable peak vs HBM traffic at the
// achievable bandwidth) with shape-dependent GEMM efficiency. The achievable fractions are
// fitted data (data/fitted/efficiency/, catalog/efficiency.h), never constants in code.
#pragma once

#include <memory>

#include "catalog/efficiency.h"
#include "catalog/framework.h"
#include "catalog/gpu.h"
#include "core/precision.h"
#include "cost/gemm_shape_curve.h"
#include "workload/ops.h"

namespace gpuplan {

// The one roofline: work that needs `memory_s` of streaming and `compute_s` of arithmetic takes
// max(memory_s, compute_s) (Williams, Waterman & Patterson 2009, "Roofline"), when p_norm <= 0.
// With p_norm > 0 it takes the p-norm (memory_s^p + compute_s^p)^(1/p): a smooth knee for
// kernels that overlap the two imperfectly near the ridge point (p is fitted per serving
// engine, data/engines/*.toml `roofline_norm`; p → ∞ is the ideal max).
double roofline_time_s(double memory_s, double compute_s, double p_norm = 0);

// A GPU with its efficiency entry folded in, precomputed once per GPU for fast evaluation.
struct RooflineDevice {
  double sm_count = 1;
  double memory_bw_bytes_per_s = 0;  // achievable: datasheet × bw_fraction
  // The fused optimizer step's streaming bandwidth (Efficiency::optimizer_bw_fraction);
  // 0 = memory_bw_bytes_per_s.
  double optimizer_bw_bytes_per_s = 0;
  PerPrecision gemm_flops_per_s{};   // achievable on large GEMMs: dense peak × peak fraction
  PerPrecision attention_fwd_flops_per_s{};
  PerPrecision attention_bwd_flops_per_s{};
  double tile_m = 128;
  double tile_n = 128;
  double k_half = 0;
  // Grouped GEMMs (Efficiency::grouped_*; cost/grouped_gemm.h): 0 = not measured.
  double grouped_tile_overhead_s = 0;
  double grouped_stream_bytes_per_s_per_sm = 0;
  // FP4 weights widened to 16 bits inside the GEMM (Efficiency::fp4_upcast_rate_fraction): the
  // kernel's full-tile rate / the 16-bit rate; 1 = not measured (no term).
  double fp4_upcast_rate_fraction = 1;
  // FP8 block-scaled GEMMs (Efficiency::fp8_block_scale_rate_fraction): their full-tile rate / the
  // per-tensor FP8 rate; 1 = not measured or scales taken in the MMA (no term).
  double fp8_block_scale_rate_fraction = 1;
  double attention_kv_half = 0;
  // Rate of the attention kernel given a materialized mask, as a fraction of its causal rate
  // (Op::masked; measured per framework kernel, 1 where not measured).
  double attention_masked_rate_fraction = 1;
  double kernel_launch_s = 0;
  // Host time of each further kernel of an eager chain (Op::kernels_fwd, kernels_bwd): one
  // ATen op's dispatch and launch, not a module's (make_roofline_device).
  double eager_kernel_s = 0;
  // Softmax exponentials per second on the special function units; 0 = not modelled.
  double exp_per_s = 0;
  // The tensor clock at the power limit every tensor rate above carries (power_clock_factor;
  // 1 = not modelled), kept for the answer's breakdown.
  double tensor_clock_factor = 1;
  // The same per precision, for the GEMMs (power_clock_factor's precision term; every entry
  // tensor_clock_factor where the family has none).
  PerPrecision gemm_clock_factor = [] { PerPrecision f{}; f.fill(1); return f; }();
  // A calibration profile's measured shape curves (gemm_shape_curve.h); null = the shape model
  // alone. Shared, so copies of the device stay cheap.
  std::shared_ptr<const GemmShapeCurves> shape_curves;
};

// `framework` null: no host time per kernel, no softmax term and the family's kernel fractions
// as they are (inference, calibration); training passes the plan's framework.
RooflineDevice make_roofline_device(const Gpu& gpu, const Efficiency& efficiency, const Framework* framework = nullptr);

// The large-GEMM fraction of the dense peak for precision `p` on `gpu` under `efficiency`: the
// fitted fraction, or for a fallback entry with achievable_gemm_share the GPU's measured
// achievable rate / peak × that share.
double gemm_peak_fraction(const Gpu& gpu, const Efficiency& efficiency, Precision p);

// Tensor rate of `gpu` at its power limit relative to its datasheet peak, over the family's
// reference part's (training; Efficiency::power_*): sustained clock ratio (watts per SM over the
// reference's)^(1/exponent) over the datasheet clock ratio (bf16 peak per SM over the
// reference's), at most 1 / the reference's clock fraction. 1 where the family or the GPU gives
// no power figure (TDP, SM count). For precision `p` the SM's power at one clock also goes as its
// tensor FLOPs per clock in `p` to the family's power_precision_exponent: a part that does more
// `p` work per clock than the reference part (Blackwell Ultra's fp4: 1.5× the B200's per clock
// and SM) sustains a lower clock in `p` (1 where the family gives no such figure).
double power_clock_factor(const Gpu& gpu, const Efficiency& efficiency, Precision p = Precision::bf16);

// Softmax exponentials per second of `gpu`: its dense bf16 peak × the family's reference
// exponentials per tensor FLOP (per clock per SM), with the GPU's own SFU rate where it differs.
// 0 when the family gives no reference SM.
double softmax_exp_per_s(const Gpu& gpu, const Efficiency& efficiency);

// Fraction of the large-GEMM rate a GEMM of `count` × (M×N output, reduction K) reaches:
// wave quantisation of its output tiles over the SMs, times K / (K + k_half). In (0, 1].
double gemm_shape_efficiency(const RooflineDevice& dev, double m, double n, double k, double count);

// One GEMM group: max(FLOPs / (rate × shape efficiency × measured shape correction),
// bytes / bandwidth).
double gemm_time_s(const RooflineDevice& dev, Precision p, double m, double n, double k, double count,
                   double bytes);

// GPU time of an op, and the host time to launch its kernels (one per GEMM, or one for a
// grouped GEMM over the local experts; backward runs two per forward one).
struct OpTime {
  double fwd_s = 0;
  double bwd_s = 0;
  double host_fwd_s = 0;
  double host_bwd_s = 0;
};

// op_time of a GEMM or an attention op (any other kind: zero times).
OpTime compute_op_time(const RooflineDevice& dev, const Op& op, Precision gemm, Precision act);

// Forward and backward time of one op; GEMM ops in `gemm` precision when marked low-precision,
// everything else (attention, the output head) in `act` precision. A memory-bound op (10 of a
// dense layer's 16 op times in a cold plan) streams its bytes at the achievable bandwidth: two
// quotients, inline here, where a call cost the evaluator ~20 instructions an op.
inline OpTime op_time(const RooflineDevice& dev, const Op& op, Precision gemm, Precision act) {
  if (op.kind != OpKind::memory) return compute_op_time(dev, op, gemm, act);
  OpTime t;
  t.fwd_s = op.fwd_bytes / dev.memory_bw_bytes_per_s;
  t.bwd_s = op.bwd_bytes / dev.memory_bw_bytes_per_s;
  // The op's own issue, one forward and two backward (the framework's host time per op); an
  // eager chain (Op::kernels_fwd, kernels_bwd) issues each further PyTorch op at one ATen
  // op's host time.
  t.host_fwd_s = dev.kernel_launch_s;
  t.host_bwd_s = 2 * dev.kernel_launch_s;
  if (op.kernels_fwd > 1) t.host_fwd_s += (op.kernels_fwd - 1) * dev.eager_kernel_s;
  if (op.kernels_bwd > 2) t.host_bwd_s += (op.kernels_bwd - 2) * dev.eager_kernel_s;
  return t;
}

// Whether op_time gives `a` and `b` the same times (under one device and precisions): every
// field it reads is equal. Two kinds of layer share most ops (a MoE layer's attention block is
// the dense layer's), and the evaluator times a shared op once.
inline bool same_op_time_inputs(const Op& a, const Op& b) {
  return a.kind == b.kind && a.m == b.m && a.n == b.n && a.k == b.k && a.count == b.count &&
         a.fwd_bytes == b.fwd_bytes && a.bwd_bytes == b.bwd_bytes && a.fwd_flops == b.fwd_flops &&
         a.bwd_flops == b.bwd_flops && a.exps == b.exps && a.low_precision == b.low_precision && a.masked == b.masked &&
         a.batched == b.batched && a.kernels_fwd == b.kernels_fwd && a.kernels_bwd == b.kernels_bwd;
}

// Sum over the ops of a layer (GPU and host times summed separately).
OpTime layer_time(const RooflineDevice& dev, const LayerOps& ops, Precision gemm, Precision act);

// What a stretch of ops takes when the host issues kernels ahead of the GPU: the slower of
// the two.
inline double issue_bound_s(double gpu_s, double host_s) { return gpu_s > host_s ? gpu_s : host_s; }

}  // namespace gpuplan
