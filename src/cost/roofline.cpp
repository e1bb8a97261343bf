// Roofline per op. Wave quantisation: a GEMM launches ceil(M/tm)·ceil(N/tn) output tiles per
// matrix; the SMs run them in ceil(tiles/SMs) waves, so the useful fraction is
// M·N·count / (waves · SMs · tm · tn) (NVIDIA, "Matrix Multiplication Background User's
// Guide", sections on tile and wave quantisation). cuBLAS may pick either orientation of the
// tile; we take the better of the two. GEMMs with fewer tiles than SMs split K to fill them.
#include "cost/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace gpuplan {
namespace {

// std::ceil and std::floor of the tile and wave counts, which are positive: a positive double
// below 2^52 truncates to an integer exactly, so these are the same values without the sign
// and range handling of the inlined std:: forms (others, and NaN, go to those). `kRound`: the
// caller is compiled for SSE4.1 (gemm_shapes_sse41 below), where std::ceil and std::floor are
// one `roundsd` each: the same values again, in one instruction instead of about eight.
template <bool kRound>
[[gnu::always_inline]] inline double ceil_count(double x) {
  if constexpr (kRound) {
    return std::ceil(x);
  } else {
    if (!(x > 0 && x < 0x1p52)) return std::ceil(x);
    const double t = static_cast<double>(static_cast<std::int64_t>(x));
    return t < x ? t + 1 : t;
  }
}
template <bool kRound>
[[gnu::always_inline]] inline double floor_count(double x) {
  if constexpr (kRound) {
    return std::floor(x);
  } else {
    if (!(x > 0 && x < 0x1p52)) return std::floor(x);
    return static_cast<double>(static_cast<std::int64_t>(x));
  }
}

// Output tiles along one dimension of `x`: ceil(x / tile_m) and ceil(x / tile_n). A GEMM op's
// forward, dgrad and wgrad (M×N, M×K, K×N) share them.
struct TileCounts {
  double by_m = 0;
  double by_n = 0;
};

template <bool kRound>
[[gnu::always_inline]] inline TileCounts tile_counts(const RooflineDevice& dev, double x) {
  TileCounts c;
  c.by_m = ceil_count<kRound>(x / dev.tile_m);
  c.by_n = dev.tile_n != dev.tile_m ? ceil_count<kRound>(x / dev.tile_n) : c.by_m;
  return c;
}

// `tiles_m` · `tiles_n` output tiles of tm × tn per matrix (ceil(m/tm), ceil(n/tn)).
template <bool kRound>
[[gnu::always_inline]] inline double wave_efficiency(double m, double n, double count, double tiles_m, double tiles_n,
                                                     double tm, double tn, double sms) {
  const double tiles = tiles_m * tiles_n * count;
  // Too few tiles to fill the SMs: cuBLAS splits K across CTAs (split-K / stream-K).
  const double split = tiles < sms ? floor_count<kRound>(sms / tiles) : 1;
  const double waves = ceil_count<kRound>(tiles * split / sms);
  return (m * n * count * split) / (waves * sms * tm * tn);
}

// gemm_shape_efficiency given m's and n's tile counts, for m, n, k and count all positive.
template <bool kRound>
[[gnu::always_inline]] inline double shape_efficiency(const RooflineDevice& dev, double m, double n, double k,
                                                      double count, const TileCounts& cm, const TileCounts& cn) {
  double waves = wave_efficiency<kRound>(m, n, count, cm.by_m, cn.by_n, dev.tile_m, dev.tile_n, dev.sm_count);
  // A square tile has one orientation (the other would give the same value).
  if (dev.tile_n != dev.tile_m) {
    waves =
        std::max(waves, wave_efficiency<kRound>(m, n, count, cm.by_n, cn.by_m, dev.tile_n, dev.tile_m, dev.sm_count));
  }
  return waves * k / (k + dev.k_half);
}

inline bool degenerate_gemm(double m, double n, double k, double count) {
  return m <= 0 || n <= 0 || k <= 0 || count <= 0;
}

// gemm_shape_efficiency's body, inline here so that gemm_time_s makes no call for it.
inline double shape_efficiency(const RooflineDevice& dev, double m, double n, double k, double count) {
  if (degenerate_gemm(m, n, k, count)) return 1;
  return shape_efficiency<false>(dev, m, n, k, count, tile_counts<false>(dev, m), tile_counts<false>(dev, n));
}

// The GEMMs of an op with count > 1 (the local routed experts, workload/ops.cpp routed_gemm)
// whose output tiles share the SMs at once. Transformer Engine's GroupedLinear, which
// Megatron-Core runs the experts through (--moe-grouped-gemm), issues one cuBLAS GEMM per local
// expert, round-robin over its pool of compute streams: nvte_multi_tensor_gemm ->
// multi_stream_cublas_gemm, transformer_engine/common/gemm/cublaslt_gemm.cu, with
// get_num_compute_streams() = 4 in common/util/multi_stream.h (TE 2.x; its CUTLASS grouped kernel
// is taken only on sm_90 under NVTE_USE_CUTLASS_GROUPED_GEMM=1, off by default, so never on
// Blackwell). Each cuBLAS GEMM picks its tiles and split-K for its own shape, and at most four
// run side by side: wave quantisation and split-K are those of min(count, 4) GEMMs, not of one
// kernel over all the experts. Measured (data/calibration/moe/, one GEMM per expert in a loop
// on H100/H200 SXM, 88 bf16 shapes each): per-GEMM quantisation predicts the loop's time better
// than a single launch over the experts (docs/validation.md, "Expert GEMMs as Transformer
// Engine launches them"). The FLOPs stay all `count` GEMMs': the efficiency is a ratio.
inline constexpr double kTransformerEngineComputeStreams = 4;
inline double expert_gemms_in_flight(double count) { return std::min(count, kTransformerEngineComputeStreams); }

// A GEMM op's forward, dgrad (M×K, reduce N) and wgrad (K×N, reduce M) shape efficiencies; the
// three share the tile counts of M, N and K.
struct GemmShapes {
  double fwd = 1;
  double dgrad = 1;
  double wgrad = 1;
};

template <bool kRound>
[[gnu::always_inline]] inline GemmShapes gemm_shapes(const RooflineDevice& dev, const Op& op) {
  GemmShapes g;
  if (degenerate_gemm(op.m, op.n, op.k, op.count)) return g;
  const TileCounts cm = tile_counts<kRound>(dev, op.m);
  const TileCounts cn = tile_counts<kRound>(dev, op.n);
  const TileCounts ck = tile_counts<kRound>(dev, op.k);
  // A batched kernel's GEMMs share its waves; separate launches at most four at once.
  const double launched = op.batched ? op.count : expert_gemms_in_flight(op.count);
  g.fwd = shape_efficiency<kRound>(dev, op.m, op.n, op.k, launched, cm, cn);
  g.dgrad = shape_efficiency<kRound>(dev, op.m, op.k, op.n, launched, cm, ck);
  g.wgrad = shape_efficiency<kRound>(dev, op.k, op.n, op.m, launched, ck, cn);
  return g;
}

// x86-64 processors since 2008 (Penryn, Bulldozer) have SSE4.1's `roundsd`; the build targets
// the x86-64 baseline, so the evaluator's GEMMs take this copy where the processor has it (the
// same doubles: std::ceil and std::floor are exact either way).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
//
// This copy also costs both tile orientations of a shape at once, one per lane of an SSE2
// register: the same operations in the same order on each lane as wave_efficiency's on its
// scalar (SSE2's packed arithmetic rounds each lane as the scalar instruction does), so the
// same doubles in about half the instructions. Lane 0 is the orientation (tile_m, tile_n),
// lane 1 (tile_n, tile_m).
namespace sse41 {

// ceil(x / tile_m), ceil(x / tile_n) in lanes 0 and 1 (tile_counts).
[[gnu::target("sse4.1"), gnu::always_inline]] inline __m128d tile_counts(__m128d tiles, double x) {
  return _mm_round_pd(_mm_div_pd(_mm_set1_pd(x), tiles), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}

// shape_efficiency of an m × n output (reduction k) from m's and n's tile counts (lanes as
// tile_counts gives them): wave_efficiency of both orientations, the better one, × the K term.
[[gnu::target("sse4.1"), gnu::always_inline]] inline double shape_efficiency(const RooflineDevice& dev, double m,
                                                                             double n, double k, double count,
                                                                             __m128d cm, __m128d cn) {
  const __m128d sms = _mm_set1_pd(dev.sm_count);
  const __m128d one = _mm_set1_pd(1);
  // Orientation 0: ceil(m / tm) · ceil(n / tn) tiles; 1: ceil(m / tn) · ceil(n / tm).
  const __m128d tiles_m = cm;
  const __m128d tiles_n = _mm_shuffle_pd(cn, cn, 1);
  const __m128d tiles = _mm_mul_pd(_mm_mul_pd(tiles_m, tiles_n), _mm_set1_pd(count));
  // split = tiles < sms ? floor(sms / tiles) : 1 (the quotient of a lane that does not split
  // is computed and dropped).
  const __m128d fewer = _mm_cmplt_pd(tiles, sms);
  const __m128d split_k =
      _mm_round_pd(_mm_div_pd(sms, tiles), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  const __m128d split = _mm_or_pd(_mm_and_pd(fewer, split_k), _mm_andnot_pd(fewer, one));
  const __m128d waves =
      _mm_round_pd(_mm_div_pd(_mm_mul_pd(tiles, split), sms), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
  const __m128d tm = _mm_set_pd(dev.tile_n, dev.tile_m);
  const __m128d tn = _mm_set_pd(dev.tile_m, dev.tile_n);
  const __m128d useful = _mm_mul_pd(_mm_set1_pd(m * n * count), split);
  const __m128d launched = _mm_mul_pd(_mm_mul_pd(_mm_mul_pd(waves, sms), tm), tn);
  const __m128d efficiency = _mm_div_pd(useful, launched);
  double waves_0 = _mm_cvtsd_f64(efficiency);
  // A square tile has one orientation (the other would give the same value).
  if (dev.tile_n != dev.tile_m) waves_0 = std::max(waves_0, _mm_cvtsd_f64(_mm_unpackhi_pd(efficiency, efficiency)));
  return waves_0 * k / (k + dev.k_half);
}

}  // namespace sse41

[[gnu::target("sse4.1")]] GemmShapes gemm_shapes_sse41(const RooflineDevice& dev, const Op& op) {
  GemmShapes g;
  if (degenerate_gemm(op.m, op.n, op.k, op.count)) return g;
  const __m128d tile = _mm_set_pd(dev.tile_n, dev.tile_m);
  const __m128d cm = sse41::tile_counts(tile, op.m);
  const __m128d cn = sse41::tile_counts(tile, op.n);
  const __m128d ck = sse41::tile_counts(tile, op.k);
  // As gemm_shapes: a batched kernel's GEMMs share its waves.
  const double launched = op.batched ? op.count : expert_gemms_in_flight(op.count);
  g.fwd = sse41::shape_efficiency(dev, op.m, op.n, op.k, launched, cm, cn);
  g.dgrad = sse41::shape_efficiency(dev, op.m, op.k, op.n, launched, cm, ck);
  g.wgrad = sse41::shape_efficiency(dev, op.k, op.n, op.m, launched, ck, cn);
  return g;
}
const bool kCpuHasRound = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.1") != 0;
}();
[[gnu::always_inline]] inline GemmShapes op_gemm_shapes(const RooflineDevice& dev, const Op& op) {
  return kCpuHasRound ? gemm_shapes_sse41(dev, op) : gemm_shapes<false>(dev, op);
}
#else
inline GemmShapes op_gemm_shapes(const RooflineDevice& dev, const Op& op) { return gemm_shapes<false>(dev, op); }
#endif

// roofline_time_s without a p-norm, which every op_time term uses: the larger of the two.
inline double roofline_max_s(double memory_s, double compute_s) { return std::max(memory_s, compute_s); }

}  // namespace

double roofline_time_s(double memory_s, double compute_s, double p_norm) {
  if (p_norm <= 0) return std::max(memory_s, compute_s);
  return std::pow(std::pow(memory_s, p_norm) + std::pow(compute_s, p_norm), 1 / p_norm);
}

double gemm_peak_fraction(const Gpu& gpu, const Efficiency& e, Precision p) {
  if (e.achievable_gemm_share > 0) {
    // Measured maximum achievable matmul (Bekman's MAMF) of this precision, else of bf16.
    for (Precision q : {p, Precision::bf16}) {
      const double peak = gpu.dense(q);
      const double measured = gpu.achievable_flops_per_s[index_of(q)];
      if (peak > 0 && measured > 0) return std::min(1.0, measured / peak * e.achievable_gemm_share);
    }
  }
  return e.gemm_fraction(p);
}

double softmax_exp_per_s(const Gpu& gpu, const Efficiency& e) {
  if (e.attention_exp_per_clk_per_sm <= 0 || e.attention_tensor_flops_per_clk_per_sm <= 0) return 0;
  const double exp_per_clk = gpu.sfu_exp_per_clk_per_sm.value_or(e.attention_exp_per_clk_per_sm);
  return gpu.dense(Precision::bf16) * exp_per_clk / e.attention_tensor_flops_per_clk_per_sm;
}

double power_clock_factor(const Gpu& gpu, const Efficiency& e, Precision p) {
  if (e.power_reference_tdp_w <= 0 || e.power_reference_sm_count <= 0 || e.power_reference_bf16_flops_per_s <= 0 ||
      e.power_reference_clock_fraction <= 0 || e.power_clock_exponent <= 0) {
    return 1;
  }
  const double peak = gpu.dense(Precision::bf16);
  if (gpu.tdp_w <= 0 || gpu.sm_count <= 0 || peak <= 0) return 1;
  const double sms = gpu.sm_count;
  // The rule assumes the family's tensor FLOPs per clock per SM (the datasheet clock is read off
  // the peak per SM). A part that states its clock and whose peak says otherwise by more than
  // half again (the GeForce RTX 5090: 209.5 TFLOP/s / (170 SMs × 2.407 GHz) = 512 per clock per SM
  // against the datacenter parts' 8,192, half-rate fp32 accumulate) is another tensor core: not
  // modelled, factor 1.
  const std::optional<double> clock_hz = gpu.tensor_clock_hz ? gpu.tensor_clock_hz : gpu.boost_clock_hz;
  if (clock_hz && *clock_hz > 0 && e.attention_tensor_flops_per_clk_per_sm > 0) {
    const double per_clk_per_sm = peak / (sms * *clock_hz);
    const double ratio = per_clk_per_sm / e.attention_tensor_flops_per_clk_per_sm;
    if (ratio < 1 / 1.5 || ratio > 1.5) return 1;
  }
  // Both parts at their power limit, an SM's power ∝ clock^exponent: the sustained clock goes
  // as (watts per SM)^(1/exponent). The datasheet clock goes as the peak per SM (the family's
  // tensor FLOPs per clock per SM are one figure). A part with power to spare stops at its
  // datasheet clock.
  // Precision `p`: its tensor FLOPs per clock relative to bf16's, on this part over the
  // reference's (the datasheet peaks' ratios; bf16 FLOPs per clock per SM are the family's one
  // figure). Doing `work` times the reference's per clock, the SM draws work^γ times its power
  // at one clock (γ = power_precision_exponent, our H200 measurement: fp8 at twice bf16's work
  // per clock sustains 1,350 against 1,455 MHz at the same 692 W, so fp8 draws (1455/1350)^α =
  // 1.16× bf16's power per clock: γ = log 1.16 / log 2 = 0.22 for α = 2).
  double work = 1;
  const double ref_p = e.power_reference_flops_per_s[index_of(p)];
  const double ref_bf16 = e.power_reference_flops_per_s[index_of(Precision::bf16)];
  if (e.power_precision_exponent > 0 && ref_p > 0 && ref_bf16 > 0 && gpu.dense(p) > 0) {
    work = (gpu.dense(p) / peak) / (ref_p / ref_bf16);
  }
  const double sustained_clock = std::pow((gpu.tdp_w / sms) / (e.power_reference_tdp_w / e.power_reference_sm_count) /
                                              std::pow(work, e.power_precision_exponent),
                                          1 / e.power_clock_exponent);
  const double datasheet_clock = (peak / sms) / (e.power_reference_bf16_flops_per_s / e.power_reference_sm_count);
  return std::min(sustained_clock / datasheet_clock, 1 / e.power_reference_clock_fraction);
}

RooflineDevice make_roofline_device(const Gpu& gpu, const Efficiency& e, const Framework* framework) {
  // Software factors: the framework's attention kernels and fusion of memory-bound ops, on the
  // family's fractions (which are Megatron-Core + Transformer Engine's); products stay <= 1.
  const double attention_scale = framework ? framework->attention_scale : 1.0;
  const double memory_fraction = std::min(1.0, e.memory_bw_fraction * (framework ? framework->memory_scale : 1.0));
  RooflineDevice dev;
  dev.sm_count = std::max(1, gpu.sm_count);
  dev.memory_bw_bytes_per_s = gpu.memory_bw_bytes_per_s * memory_fraction;
  // Measured on the fused kernel itself, so no framework factor: every framework we model steps
  // with a fused multi-tensor Adam.
  if (e.optimizer_bw_fraction > 0) dev.optimizer_bw_bytes_per_s = gpu.memory_bw_bytes_per_s * e.optimizer_bw_fraction;
  // A framework whose attention kernel was measured on this family uses the measurement, not
  // the family's fitted fractions (data/fitted/frameworks/pytorch.toml, [attention.measured]).
  const Framework::MeasuredAttention* measured = framework ? framework->measured_attention_for(e.id) : nullptr;
  const double fwd_fraction = measured ? measured->fwd_fraction : std::min(1.0, e.attention_fwd_fraction * attention_scale);
  const double bwd_fraction = measured ? measured->bwd_fraction : std::min(1.0, e.attention_bwd_fraction * attention_scale);
  // Training only, like the softmax term: the serving engines' constants were fitted without it.
  // The clock scales every tensor rate and the SFUs alike; a measured attention kernel was
  // measured at its GPU's own clock.
  const double clock = framework ? power_clock_factor(gpu, e) : 1.0;
  const double attention_clock = measured ? 1.0 : clock;
  for (Precision p : kAllPrecisions) {
    const double peak = gpu.dense(p);
    // The GEMMs at their own precision's clock (power_clock_factor); attention stays 16-bit.
    const double gemm_clock = framework && e.power_precision_exponent > 0 ? power_clock_factor(gpu, e, p) : clock;
    dev.gemm_clock_factor[index_of(p)] = gemm_clock;
    dev.gemm_flops_per_s[index_of(p)] = peak * std::min(1.0, gemm_peak_fraction(gpu, e, p) * gemm_clock);
    dev.attention_fwd_flops_per_s[index_of(p)] = peak * std::min(1.0, fwd_fraction * attention_clock);
    dev.attention_bwd_flops_per_s[index_of(p)] = peak * std::min(1.0, bwd_fraction * attention_clock);
  }
  dev.tile_m = e.tile_m;
  dev.tile_n = e.tile_n;
  dev.k_half = e.k_half;
  dev.grouped_tile_overhead_s = e.grouped_tile_overhead_s;
  dev.grouped_stream_bytes_per_s_per_sm = e.grouped_stream_bytes_per_s_per_sm;
  dev.fp4_upcast_rate_fraction = e.fp4_upcast_rate_fraction > 0 ? e.fp4_upcast_rate_fraction : 1;
  dev.fp8_block_scale_rate_fraction = e.fp8_block_scale_rate_fraction > 0 ? e.fp8_block_scale_rate_fraction : 1;
  dev.attention_kv_half = measured ? measured->kv_half : e.attention_kv_half;
  dev.attention_masked_rate_fraction = measured ? measured->masked_rate_fraction : 1;
  dev.kernel_launch_s = framework ? framework->kernel_launch_s : 0;
  // One ATen op of an eager chain: the framework's measured figure where it has one, else ours
  // (25 µs, the [eager_kernels] host_us of data/fitted/frameworks/pytorch.toml, measured on our
  // H100 and H200 hosts; ~4-7 µs for a bare ATen op, pytorch/pytorch #41383, #82793). Not
  // launch_us, a fitted module-level host time per op (60 µs for Megatron-Core).
  constexpr double kMeasuredEagerKernelHostS = 25e-6;
  if (framework != nullptr) {
    dev.eager_kernel_s = framework->eager_kernels.host_s_per_kernel > 0 ? framework->eager_kernels.host_s_per_kernel
                                                                       : kMeasuredEagerKernelHostS;
  }
  dev.tensor_clock_factor = clock;
  // The softmax term is part of the training model (fitted with it); the serving model's engine
  // constants (data/engines/) were fitted without it, so inference callers pass no framework.
  dev.exp_per_s = framework ? softmax_exp_per_s(gpu, e) * attention_clock : 0;
  return dev;
}

double gemm_shape_efficiency(const RooflineDevice& dev, double m, double n, double k, double count) {
  return shape_efficiency(dev, m, n, k, count);
}

namespace {

// gemm_time_s at shape efficiency `shape`; kCurves: the device has measured shape curves
// (dev.shape_curves set: the caller tested it once for an op's three GEMMs).
template <bool kCurves>
[[gnu::always_inline]] inline double gemm_time_at_s(const RooflineDevice& dev, Precision p, double m, double n,
                                                    double k, double count, double bytes, double shape) {
  const double flops = 2 * m * n * k * count;
  double rate = dev.gemm_flops_per_s[index_of(p)] * shape;
  if constexpr (kCurves) rate *= gemm_shape_correction(dev.shape_curves->by_precision[index_of(p)], m, n, k);
  const double compute_s = rate > 0 ? flops / rate : 0;
  return roofline_max_s(bytes / dev.memory_bw_bytes_per_s, compute_s);
}
inline double gemm_time_at_s(const RooflineDevice& dev, Precision p, double m, double n, double k, double count,
                             double bytes, double shape) {
  return dev.shape_curves ? gemm_time_at_s<true>(dev, p, m, n, k, count, bytes, shape)
                          : gemm_time_at_s<false>(dev, p, m, n, k, count, bytes, shape);
}

}  // namespace

double gemm_time_s(const RooflineDevice& dev, Precision p, double m, double n, double k, double count, double bytes) {
  return gemm_time_at_s(dev, p, m, n, k, count, bytes, shape_efficiency(dev, m, n, k, count));
}

namespace {

// gemm_op_time's body; kCurves as for gemm_time_at_s.
template <bool kCurves>
[[gnu::always_inline]] inline OpTime gemm_op_time(const RooflineDevice& dev, const Op& op, Precision gemm,
                                                  Precision act) {
  OpTime t;
  const Precision p = op.low_precision ? gemm : act;
  // Backward: dgrad (M×K, reduce N) and wgrad (K×N, reduce M), half the traffic each
  // (gemm_time_s each, with the shape efficiencies of gemm_shapes).
  const GemmShapes shape = op_gemm_shapes(dev, op);
  t.fwd_s = gemm_time_at_s<kCurves>(dev, p, op.m, op.n, op.k, op.count, op.fwd_bytes, shape.fwd);
  t.bwd_s = gemm_time_at_s<kCurves>(dev, p, op.m, op.k, op.n, op.count, op.bwd_bytes / 2, shape.dgrad) +
            gemm_time_at_s<kCurves>(dev, p, op.k, op.n, op.m, op.count, op.bwd_bytes / 2, shape.wgrad);
  // One host issue per GEMM, also for the local experts of a grouped GEMM: Transformer
  // Engine's GroupedLinear (Megatron-Core --moe-grouped-gemm) runs `general_grouped_gemm`,
  // one cuBLAS GEMM per expert spread over a few streams, so small experts cost host time
  // in proportion to their number.
  // A batched GEMM (torch.bmm over sequences × heads) is one kernel whatever its count.
  const double launches = op.batched ? 1 : op.count;
  t.host_fwd_s = launches * dev.kernel_launch_s;
  t.host_bwd_s = 2 * launches * dev.kernel_launch_s;
  return t;
}

// compute_op_time of a GEMM op, apart from the attention op's: its three shape efficiencies and
// roofline terms keep a dozen values live, so it saves registers on entry; an attention op's
// time then pays none of that (a prologue and epilogue of ~16 instructions). Without measured
// shape curves (every search's device but a calibrated one) its three GEMMs make no call, and
// the curves are tested once, not once a GEMM, with none of the moves around the calls.
[[gnu::noinline]] OpTime gemm_op_time(const RooflineDevice& dev, const Op& op, Precision gemm, Precision act) {
  return dev.shape_curves ? gemm_op_time<true>(dev, op, gemm, act) : gemm_op_time<false>(dev, op, gemm, act);
}

}  // namespace

OpTime compute_op_time(const RooflineDevice& dev, const Op& op, Precision gemm, Precision act) {
  OpTime t;
  switch (op.kind) {
    case OpKind::memory:  // op_time's own (roofline.h)
      break;
    case OpKind::gemm:
      return gemm_op_time(dev, op, gemm, act);
    case OpKind::attention: {
      // Long key spans fill the kernel's tiles; short ones pay per-tile overheads.
      const double keys = op.m > 0 ? op.m : 0;
      const double span = keys > 0 ? keys / (keys + dev.attention_kv_half) : 1;
      // A materialized mask: the kernel computes every key and reads the mask's tiles.
      const double masked = op.masked ? dev.attention_masked_rate_fraction : 1;
      const double fwd_rate = dev.attention_fwd_flops_per_s[index_of(act)] * span * masked;
      const double bwd_rate = dev.attention_bwd_flops_per_s[index_of(act)] * span * masked;
      // Softmax: one exponential per score forward, and again in the backward, which
      // recomputes P = exp(S - LSE) (Dao 2023, FlashAttention-2, alg. 2). The SFUs run beside
      // the tensor cores but the kernels overlap the two only in part; on Blackwell, whose SFU
      // rate per SM did not grow with its tensor rate, the exponentials take as long as the
      // MMAs (Zadouri et al. 2026, FlashAttention-4, sec. 2), and Blackwell Ultra's doubled SFU
      // rate speeds FP8 attention forward up ~35% (NVIDIA, "Making Softmax More Efficient with
      // NVIDIA Blackwell Ultra", 2026): the sum, not the max, of the two follows that.
      const double exp_s = dev.exp_per_s > 0 ? op.exps / dev.exp_per_s : 0;
      t.fwd_s = roofline_max_s(op.fwd_bytes / dev.memory_bw_bytes_per_s,
                               (fwd_rate > 0 ? op.fwd_flops / fwd_rate : 0) + exp_s);
      t.bwd_s = roofline_max_s(op.bwd_bytes / dev.memory_bw_bytes_per_s,
                               (bwd_rate > 0 ? op.bwd_flops / bwd_rate : 0) + exp_s);
      t.host_fwd_s = dev.kernel_launch_s;
      t.host_bwd_s = dev.kernel_launch_s;
      return t;
    }
  }
  return t;
}

OpTime layer_time(const RooflineDevice& dev, const LayerOps& ops, Precision gemm, Precision act) {
  OpTime sum;
  for (const Op& op : ops) {
    const OpTime t = op_time(dev, op, gemm, act);
    sum.fwd_s += t.fwd_s;
    sum.bwd_s += t.bwd_s;
    sum.host_fwd_s += t.host_fwd_s;
    sum.host_bwd_s += t.host_bwd_s;
  }
  return sum;
}

}  // namespace gpuplan
