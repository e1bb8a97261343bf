// BenchDevice over the CUDA runtime: the kernels of kernels.cu and gemm_lt.cpp, one device.
#include "cuda_device.h"

#include <cuda_runtime.h>

#include <fmt/format.h>

#include "core/error.h"
#include "cuda_util.h"
#include "kernels.h"

namespace gpuplan::cuda {
namespace {

std::string version_text(int version) { return fmt::format("{}.{}", version / 1000, (version % 1000) / 10); }

class CudaBenchDevice final : public BenchDevice {
 public:
  explicit CudaBenchDevice(int ordinal) {
    GP_CUDA(cudaSetDevice(ordinal));
    cudaDeviceProp prop{};
    GP_CUDA(cudaGetDeviceProperties(&prop, ordinal));
    int driver = 0;
    int runtime = 0;
    GP_CUDA(cudaDriverGetVersion(&driver));
    GP_CUDA(cudaRuntimeGetVersion(&runtime));
    info_.name = prop.name;
    info_.sm_count = prop.multiProcessorCount;
    // cudaDriverGetVersion gives the CUDA version the driver supports; the driver's own version
    // string (580.xx) comes from NVML, which `gpuplan monitor` reads.
    info_.driver = "CUDA " + version_text(driver);
    info_.cuda = version_text(runtime);
  }
  BenchDeviceInfo info() const override { return info_; }
  Timing time_memory(const std::string& op, double bytes, int runs) override {
    return to_timing(run_memory(op, static_cast<std::size_t>(bytes), runs, next_seed()));
  }
  Timing time_gemm(const std::string& kernel, Precision precision, int m, int n, int k, int runs) override {
    if (kernel == "wmma" && precision == Precision::fp16) return to_timing(run_wmma_fp16(m, n, k, runs, next_seed()));
    if (kernel == "cublaslt" && precision == Precision::bf16) {
      return to_timing(run_cublaslt_bf16(m, n, k, runs, next_seed()));
    }
    throw Error(fmt::format("gpuplan-bench has no {} kernel for {} yet", kernel, precision_name(precision)));
  }

 private:
  static Timing to_timing(KernelRun run) { return {std::move(run.times_s), run.correct, std::move(run.check)}; }
  unsigned next_seed() { return seed_ = seed_ * 1664525u + 1013904223u; }  // fresh inputs every kernel

  BenchDeviceInfo info_;
  unsigned seed_ = 12345;
};

}  // namespace

int cuda_device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

std::unique_ptr<BenchDevice> open_cuda_device(int ordinal) { return std::make_unique<CudaBenchDevice>(ordinal); }

}  // namespace gpuplan::cuda
