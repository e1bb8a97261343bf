// The CUDA kernels of gpuplan-bench behind plain C++ calls (no CUDA types), each one: fresh
// random inputs, output poisoned, warm-up, `runs` runs timed one by one with CUDA events, then
// the output checked against a reference. Compiled by nvcc (kernels.cu) or linking cuBLASLt
// (gemm_lt.cpp) and the runtime (host_copy.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/precision.h"

namespace gpuplan::cuda {

struct KernelRun {
  std::vector<double> times_s;
  bool correct = false;
  std::string check;    // what was checked, and the worst error found
  std::string skipped;  // non-empty: not run on this GPU, and why
};

// op: "read" | "write" | "copy" over `bytes` of 32-bit words (rounded down to 16-byte vectors),
// or "l2_read": the same read over a buffer that fits in L2, many passes per launch (bypassing
// L1), its times per pass.
KernelRun run_memory(const std::string& op, std::size_t bytes, int runs, unsigned seed);
// op: "h2d_pinned" | "d2h_pinned" | "h2d_pageable" | "d2h_pageable": cudaMemcpy of `bytes`,
// checked word by word at the far end.
KernelRun run_host_copy(const std::string& op, std::size_t bytes, int runs, unsigned seed);
// C[m,n] (fp32) = A[m,k] · B[k,n] in fp16 with 16×16×16 WMMA fragments, one warp per C tile;
// m, n, k multiples of 16. Checked on 256 random entries against a double-precision CPU sum.
KernelRun run_wmma_fp16(int m, int n, int k, int runs, unsigned seed);
// D = A · Bᵀ through cuBLASLt in fp32, tf32, bf16, fp16 or fp8 (e4m3 in, bf16 out; skipped
// below compute capability 8.9, given as major·10 + minor). Checked on 256 sampled entries
// against a double-precision CPU sum, and every output for finiteness.
KernelRun run_cublaslt(Precision precision, int m, int n, int k, int runs, unsigned seed, int compute_capability);

// The word pattern the memory kernels write and check: word i of a buffer filled with `seed`.
unsigned expected_word(std::size_t i, unsigned seed);
void fill_words(unsigned* device_words, std::size_t words, unsigned seed);
// Words of a device buffer that differ from the pattern.
unsigned long long wrong_words(const unsigned* device_words, std::size_t words, unsigned seed);

// Errors from the CUDA runtime become std::runtime_error with the call and the CUDA message.
void check_cuda(int status, const char* call);

}  // namespace gpuplan::cuda
