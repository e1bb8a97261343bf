// cuBLASLt matmuls planned once and run many times: row-major
//   D[m,n] = alpha · op(A)[m,k] · op(B)[k,n] + beta · C[m,n]
// with A stored [m,k] (or [k,m] when a_transposed) and B stored [k,n] (or [n,k] when
// b_transposed, nn.Linear's weight layout), optionally batched with fixed strides. The
// descriptors and the algorithm cuBLASLt's heuristic ranks first are made in the constructor,
// so a timed run is one cublasLtMatmul call.
#pragma once

#include <cublasLt.h>

#include <cstddef>

#include "cuda_util.h"
#include "random_fill.h"

namespace gpuplan::cuda {

// One handle and one workspace, shared by the matmuls run one after another on one stream.
class LtContext {
 public:
  static constexpr std::size_t kWorkspaceBytes = 32u << 20;
  LtContext();
  ~LtContext();
  LtContext(const LtContext&) = delete;
  LtContext& operator=(const LtContext&) = delete;
  cublasLtHandle_t handle() const { return handle_; }
  void* workspace() const { return workspace_.ptr; }

 private:
  cublasLtHandle_t handle_ = nullptr;
  DeviceBuffer<unsigned char> workspace_{kWorkspaceBytes};
};

struct MatmulSpec {
  Elem ab = Elem::bf16;  // A and B
  Elem cd = Elem::bf16;  // C and D
  bool tf32 = false;     // fp32 inputs rounded to tf32 on tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32)
  bool a_transposed = false;
  bool b_transposed = false;
  int m = 0, n = 0, k = 0;
  int batch = 1;
  long long stride_a = 0, stride_b = 0, stride_c = 0;  // elements between batch entries
};

class LtMatmul {
 public:
  LtMatmul(const LtContext& context, const MatmulSpec& spec);
  ~LtMatmul();
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  // c = nullptr reads C from d (only matters when beta ≠ 0).
  void run(const void* a, const void* b, void* d, float alpha = 1, float beta = 0, const void* c = nullptr) const;

 private:
  const LtContext& context_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t layout_a_ = nullptr, layout_b_ = nullptr, layout_cd_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

// cuBLASLt errors become std::runtime_error with the call and the status.
void check_lt(cublasStatus_t status, const char* call);
#define GP_LT(call) ::gpuplan::cuda::check_lt((call), #call)

}  // namespace gpuplan::cuda
