// The CUDA kernels of gpuplan-bench behind plain C++ calls (no CUDA types), each one: fresh
// random inputs, output poisoned, warm-up, `runs` runs timed one by one with CUDA events, then
// the output checked against a reference. Compiled by nvcc (kernels.cu, gemm_lt.cpp links cuBLASLt).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpuplan::cuda {

struct KernelRun {
  std::vector<double> times_s;
  bool correct = false;
  std::string check;  // what was checked, and the worst error found
};

// op: "read" | "write" | "copy" over `bytes` of 32-bit words (rounded down to 16-byte vectors).
KernelRun run_memory(const std::string& op, std::size_t bytes, int runs, unsigned seed);
// C[m,n] (fp32) = A[m,k] · B[k,n] in fp16 with 16×16×16 WMMA fragments, one warp per C tile;
// m, n, k multiples of 16. Checked on 256 random entries against a double-precision CPU sum.
KernelRun run_wmma_fp16(int m, int n, int k, int runs, unsigned seed);
// The same product through cuBLASLt in bf16 (fp32 accumulate and output).
KernelRun run_cublaslt_bf16(int m, int n, int k, int runs, unsigned seed);

// Errors from the CUDA runtime become std::runtime_error with the call and the CUDA message.
void check_cuda(int status, const char* call);

}  // namespace gpuplan::cuda
