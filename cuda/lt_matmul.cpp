// cuBLASLt is column-major. A row-major [r, c] buffer is the column-major [c, r] matrix, its
// transpose, so row-major D = op(A)·op(B) is column-major Dᵀ = op(B)ᵀ·op(A)ᵀ: cuBLAS's first
// operand is our B and its second our A, each transposed exactly when ours is stored
// transposed. FP8 kernels need cuBLAS's "TN" form, i.e. our B stored [n,k]: nn.Linear's layout.
#include "lt_matmul.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpuplan::cuda {
namespace {

cudaDataType_t data_type(Elem elem) {
  switch (elem) {
    case Elem::f32: return CUDA_R_32F;
    case Elem::bf16: return CUDA_R_16BF;
    case Elem::f16: return CUDA_R_16F;
    case Elem::e4m3: return CUDA_R_8F_E4M3;
  }
  throw std::invalid_argument("unknown element type");
}

cublasLtMatrixLayout_t make_layout(Elem elem, int rows, int cols, int ld, int batch, long long stride) {
  cublasLtMatrixLayout_t layout = nullptr;
  GP_LT(cublasLtMatrixLayoutCreate(&layout, data_type(elem), static_cast<std::uint64_t>(rows),
                                   static_cast<std::uint64_t>(cols), ld));
  if (batch > 1) {
    const std::int32_t count = batch;
    const std::int64_t offset = stride;
    GP_LT(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
    GP_LT(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset,
                                           sizeof(offset)));
  }
  return layout;
}

}  // namespace

void check_lt(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + ": cuBLASLt status " + std::to_string(static_cast<int>(status)));
  }
}

LtContext::LtContext() { GP_LT(cublasLtCreate(&handle_)); }
LtContext::~LtContext() { cublasLtDestroy(handle_); }

LtMatmul::LtMatmul(const LtContext& context, const MatmulSpec& s) : context_(context) {
  const cublasComputeType_t compute = s.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  GP_LT(cublasLtMatmulDescCreate(&op_, compute, CUDA_R_32F));
  const cublasOperation_t trans_first = s.b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;   // cuBLAS's A: our B
  const cublasOperation_t trans_second = s.a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;  // cuBLAS's B: our A
  GP_LT(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &trans_first, sizeof(trans_first)));
  GP_LT(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &trans_second, sizeof(trans_second)));
  // Our B stored [n,k] is column-major k×n (ld k), op T; stored [k,n] it is n×k (ld n), op N.
  layout_b_ = s.b_transposed ? make_layout(s.ab, s.k, s.n, s.k, s.batch, s.stride_b)
                             : make_layout(s.ab, s.n, s.k, s.n, s.batch, s.stride_b);
  // Our A stored [k,m] is column-major m×k (ld m), op T; stored [m,k] it is k×m (ld k), op N.
  layout_a_ = s.a_transposed ? make_layout(s.ab, s.m, s.k, s.m, s.batch, s.stride_a)
                             : make_layout(s.ab, s.k, s.m, s.k, s.batch, s.stride_a);
  layout_cd_ = make_layout(s.cd, s.n, s.m, s.n, s.batch, s.stride_c);  // Dᵀ: n×m, ld n

  cublasLtMatmulPreference_t preference = nullptr;
  GP_LT(cublasLtMatmulPreferenceCreate(&preference));
  std::size_t workspace_bytes = LtContext::kWorkspaceBytes;
  GP_LT(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                             sizeof(workspace_bytes)));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(context_.handle(), op_, layout_b_, layout_a_, layout_cd_,
                                                               layout_cd_, preference, 1, &heuristic, &found);
  cublasLtMatmulPreferenceDestroy(preference);
  if (status != CUBLAS_STATUS_SUCCESS || found == 0) {
    throw std::runtime_error("cuBLASLt has no algorithm for a " + std::string(elem_name(s.ab)) + " → " +
                             elem_name(s.cd) + " GEMM " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                             std::to_string(s.k) + " (status " + std::to_string(static_cast<int>(status)) + ")");
  }
  algo_ = heuristic.algo;
}

LtMatmul::~LtMatmul() {
  cublasLtMatrixLayoutDestroy(layout_cd_);
  cublasLtMatrixLayoutDestroy(layout_a_);
  cublasLtMatrixLayoutDestroy(layout_b_);
  cublasLtMatmulDescDestroy(op_);
}

void LtMatmul::run(const void* a, const void* b, void* d, float alpha, float beta, const void* c) const {
  GP_LT(cublasLtMatmul(context_.handle(), op_, &alpha, b, layout_b_, a, layout_a_, &beta, c ? c : d, layout_cd_, d,
                       layout_cd_, &algo_, context_.workspace(), LtContext::kWorkspaceBytes, nullptr));
}

}  // namespace gpuplan::cuda
