// cuBLASLt bf16 GEMM for gpuplan-bench: C[m,n] (fp32) = A[m,k] · B[k,n], row-major, fp32
// accumulate, the algorithm cuBLASLt's heuristic picks first with a 32 MiB workspace.
#include <cublasLt.h>
#include <cuda_bf16.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "cuda_util.h"
#include "kernels.h"

namespace gpuplan::cuda {
namespace {

void check_lt(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + ": cuBLASLt status " + std::to_string(static_cast<int>(status)));
  }
}
#define GP_LT(call) check_lt((call), #call)

}  // namespace

KernelRun run_cublaslt_bf16(int m, int n, int k, int runs, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const auto mk = static_cast<std::size_t>(m) * static_cast<std::size_t>(k);
  const auto kn = static_cast<std::size_t>(k) * static_cast<std::size_t>(n);
  const auto mn = static_cast<std::size_t>(m) * static_cast<std::size_t>(n);
  std::vector<__nv_bfloat16> a(mk), b(kn);
  for (auto& x : a) x = __float2bfloat16(uniform(rng));
  for (auto& x : b) x = __float2bfloat16(uniform(rng));
  DeviceBuffer<__nv_bfloat16> da(mk), db(kn);
  DeviceBuffer<float> dc(mn);
  constexpr std::size_t kWorkspaceBytes = 32u << 20;
  DeviceBuffer<unsigned char> workspace(kWorkspaceBytes);
  GP_CUDA(cudaMemcpy(da.ptr, a.data(), mk * sizeof(a[0]), cudaMemcpyHostToDevice));
  GP_CUDA(cudaMemcpy(db.ptr, b.data(), kn * sizeof(b[0]), cudaMemcpyHostToDevice));
  GP_CUDA(cudaMemset(dc.ptr, 0xFF, mn * sizeof(float)));  // NaN until the GEMM writes it

  // cuBLASLt is column-major: row-major C = A·B is column-major Cᵀ (n×m) = Bᵀ (n×k) · Aᵀ (k×m),
  // and the row-major buffers already are those column-major transposes.
  cublasLtHandle_t lt{};
  GP_LT(cublasLtCreate(&lt));
  cublasLtMatmulDesc_t op{};
  GP_LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtMatrixLayout_t layout_b{}, layout_a{}, layout_c{};
  GP_LT(cublasLtMatrixLayoutCreate(&layout_b, CUDA_R_16BF, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(k), n));
  GP_LT(cublasLtMatrixLayoutCreate(&layout_a, CUDA_R_16BF, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(m), k));
  GP_LT(cublasLtMatrixLayoutCreate(&layout_c, CUDA_R_32F, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m), n));
  cublasLtMatmulPreference_t preference{};
  GP_LT(cublasLtMatmulPreferenceCreate(&preference));
  std::size_t workspace_bytes = kWorkspaceBytes;
  GP_LT(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                             sizeof(workspace_bytes)));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  GP_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, layout_b, layout_a, layout_c, layout_c, preference, 1, &heuristic,
                                       &found));
  if (found == 0) throw std::runtime_error("cuBLASLt has no bf16 algorithm for this shape");
  const float alpha = 1.0f;
  const float beta = 0.0f;
  KernelRun run;
  run.times_s = time_runs(
      [&] {
        GP_LT(cublasLtMatmul(lt, op, &alpha, db.ptr, layout_b, da.ptr, layout_a, &beta, dc.ptr, layout_c, dc.ptr,
                             layout_c, &heuristic.algo, workspace.ptr, kWorkspaceBytes, nullptr));
      },
      runs);
  cublasLtMatmulPreferenceDestroy(preference);
  cublasLtMatrixLayoutDestroy(layout_c);
  cublasLtMatrixLayoutDestroy(layout_a);
  cublasLtMatrixLayoutDestroy(layout_b);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(lt);

  std::vector<float> c(mn);
  GP_CUDA(cudaMemcpy(c.data(), dc.ptr, mn * sizeof(float), cudaMemcpyDeviceToHost));
  // 256 sampled entries against a double-precision sum of the same bf16 inputs.
  double worst = 0;
  std::uniform_int_distribution<int> row(0, m - 1), col(0, n - 1);
  for (int sample_idx = 0; sample_idx < 256; ++sample_idx) {
    const auto i = static_cast<std::size_t>(row(rng));
    const auto j = static_cast<std::size_t>(col(rng));
    double ref = 0, scale = 0;
    for (std::size_t kk = 0; kk < static_cast<std::size_t>(k); ++kk) {
      const double p = static_cast<double>(__bfloat162float(a[i * static_cast<std::size_t>(k) + kk])) *
                       static_cast<double>(__bfloat162float(b[kk * static_cast<std::size_t>(n) + j]));
      ref += p;
      scale += std::abs(p);
    }
    const double got = c[i * static_cast<std::size_t>(n) + j];
    const double err = std::isfinite(got) ? std::abs(got - ref) / (scale > 0 ? scale : 1)
                                          : std::numeric_limits<double>::infinity();
    worst = std::max(worst, err);
  }
  run.correct = worst < 1e-3;
  run.check = "worst error " + std::to_string(worst) + " of sum |a·b| on 256 sampled entries (limit 1e-3)";
  return run;
}

}  // namespace gpuplan::cuda
