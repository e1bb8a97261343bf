// cuBLASLt GEMMs for gpuplan-bench in every precision training uses: D[m,n] = A[m,k] · Bᵀ with
// B stored [n,k] (nn.Linear's weight layout; the "TN" form FP8 kernels require), fp32
// accumulation, the algorithm cuBLASLt's heuristic picks first with a 32 MiB workspace.
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include <fmt/format.h>

#include "cuda_util.h"
#include "kernels.h"
#include "lt_matmul.h"
#include "random_fill.h"

namespace gpuplan::cuda {
namespace {

// Storage, math mode and the check's limits for one precision. The reference is a double sum
// over the very inputs the GPU read (already rounded to their type), so what remains is the
// GPU's accumulation (fp32: well under 1e-4 of Σ|a·b| for these k), tf32's rounding of each
// fp32 input to 10 mantissa bits (each product within 2^-9 of itself, even truncated), FP8 tensor cores'
// narrower accumulator (DeepSeek-V3 report §3.3.2: about 14 bits), and the one rounding of
// the output (unit roundoff u_out of |result|).
struct LtPrecision {
  Elem ab = Elem::bf16;
  Elem cd = Elem::bf16;
  bool tf32 = false;
  double limit = 1e-4;  // of Σ|a·b|
  double out_unit = 0;  // unit roundoff of the output type
};

LtPrecision lt_precision(Precision p) {
  switch (p) {
    case Precision::fp32: return {Elem::f32, Elem::f32, false, 1e-4, 0};
    case Precision::tf32: return {Elem::f32, Elem::f32, true, std::ldexp(1.0, -9) + 1e-4, 0};
    case Precision::bf16: return {Elem::bf16, Elem::bf16, false, 1e-4, std::ldexp(1.0, -8)};
    case Precision::fp16: return {Elem::f16, Elem::f16, false, 1e-4, std::ldexp(1.0, -11)};
    case Precision::fp8: return {Elem::e4m3, Elem::bf16, false, 5e-3, std::ldexp(1.0, -8)};
    default: break;
  }
  throw std::invalid_argument(fmt::format("gpuplan-bench has no cuBLASLt {} GEMM", precision_name(p)));
}

}  // namespace

KernelRun run_cublaslt(Precision precision, int m, int n, int k, int runs, unsigned seed, int compute_capability) {
  KernelRun run;
  if (precision == Precision::fp8 && compute_capability < 89) {
    run.skipped = fmt::format("FP8 (e4m3) tensor cores need compute capability 8.9 or later; this GPU is {}.{}",
                              compute_capability / 10, compute_capability % 10);
    return run;
  }
  const LtPrecision lp = lt_precision(precision);
  const auto mk = static_cast<std::size_t>(m) * static_cast<std::size_t>(k);
  const auto nk = static_cast<std::size_t>(n) * static_cast<std::size_t>(k);
  const auto mn = static_cast<std::size_t>(m) * static_cast<std::size_t>(n);
  DeviceBuffer<unsigned char> a(mk * elem_bytes(lp.ab)), b(nk * elem_bytes(lp.ab)), d(mn * elem_bytes(lp.cd));
  const FillSpec fill_a{seed, 1, 0};
  const FillSpec fill_b{seed ^ 0x5bd1e995u, 1, 0};
  fill_uniform(a.ptr, lp.ab, mk, fill_a);
  fill_uniform(b.ptr, lp.ab, nk, fill_b);
  GP_CUDA(cudaMemset(d.ptr, 0xFF, mn * elem_bytes(lp.cd)));  // NaN until the GEMM writes it

  const LtContext context;
  MatmulSpec spec;
  spec.ab = lp.ab;
  spec.cd = lp.cd;
  spec.tf32 = lp.tf32;
  spec.b_transposed = true;
  spec.m = m;
  spec.n = n;
  spec.k = k;
  const LtMatmul matmul(context, spec);
  run.times_s = time_runs([&] { matmul.run(a.ptr, b.ptr, d.ptr); }, runs);

  const unsigned long long nonfinite = count_nonfinite(d.ptr, lp.cd, mn);
  // 256 sampled entries against a double-precision sum of the same inputs.
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> row(0, m - 1), col(0, n - 1);
  double worst = 0;
  for (int sample_idx = 0; sample_idx < 256; ++sample_idx) {
    const auto i = static_cast<std::size_t>(row(rng));
    const auto j = static_cast<std::size_t>(col(rng));
    double ref = 0, scale = 0;
    for (std::size_t kk = 0; kk < static_cast<std::size_t>(k); ++kk) {
      const double p = stored_uniform(lp.ab, i * static_cast<std::size_t>(k) + kk, fill_a) *
                       stored_uniform(lp.ab, j * static_cast<std::size_t>(k) + kk, fill_b);
      ref += p;
      scale += std::abs(p);
    }
    const double got = read_element(d.ptr, lp.cd, i * static_cast<std::size_t>(n) + j);
    const double beyond_rounding = std::max(0.0, std::abs(got - ref) - lp.out_unit * std::abs(ref));
    const double err = std::isfinite(got) ? beyond_rounding / (scale > 0 ? scale : 1)
                                          : std::numeric_limits<double>::infinity();
    worst = std::max(worst, err);
  }
  run.correct = nonfinite == 0 && worst <= lp.limit;
  run.check = fmt::format(
      "{} of {} outputs not finite; worst error {:.2e} of Σ|a·b| beyond the output's rounding on 256 sampled "
      "entries (limit {:.1e})",
      nonfinite, mn, worst, lp.limit);
  return run;
}

}  // namespace gpuplan::cuda
