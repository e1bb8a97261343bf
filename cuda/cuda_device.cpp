// BenchDevice over the CUDA runtime: the kernels of kernels.cu, host_copy.cpp, gemm_lt.cpp,
// layer_bench.cpp and step_bench.cpp on one device, and NCCL collectives over all ranks when
// there are any.
#include "cuda_device.h"

#include <cuda_runtime.h>

#include <fmt/format.h>

#include "collectives.h"
#include "core/error.h"
#include "cuda_util.h"
#include "kernels.h"
#include "layer_bench.h"
#include "step_bench.h"

namespace gpuplan::cuda {

namespace {

std::string version_text(int version) { return fmt::format("{}.{}", version / 1000, (version % 1000) / 10); }

// A layer's or a step's one-off check (LayerRun, StepRun: untimed) as the sweep's Timing.
template <typename Run>
Timing check_timing(Run run) {
  Timing t;
  t.correct = run.correct;
  t.check = std::move(run.check);
  return t;
}

class CudaBenchDevice final : public BenchDevice {
 public:
  CudaBenchDevice(int ordinal, std::unique_ptr<Collectives> collectives, std::string collective_note)
      : ordinal_(ordinal), collectives_(std::move(collectives)) {
    GP_CUDA(cudaSetDevice(ordinal));
    cudaDeviceProp prop{};
    GP_CUDA(cudaGetDeviceProperties(&prop, ordinal));
    int driver = 0;
    int runtime = 0;
    int l2_bytes = 0;
    GP_CUDA(cudaDriverGetVersion(&driver));
    GP_CUDA(cudaRuntimeGetVersion(&runtime));
    GP_CUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, ordinal));
    info_.name = prop.name;
    info_.sm_count = prop.multiProcessorCount;
    // cudaDriverGetVersion gives the CUDA version the driver supports; the driver's own version
    // string (580.xx) comes from NVML, which `gpuplan monitor` reads.
    info_.driver = "CUDA " + version_text(driver);
    info_.cuda = version_text(runtime);
    info_.compute_capability = prop.major * 10 + prop.minor;
    info_.l2_bytes = l2_bytes;
    info_.collective_gpus = collectives_ ? collectives_->ranks() : 0;
    info_.collective_note = std::move(collective_note);
  }
  BenchDeviceInfo info() const override { return info_; }

  Timing time_memory(const std::string& op, double bytes, int runs) override {
    select();
    const auto size = static_cast<std::size_t>(bytes);
    if (op.rfind("h2d_", 0) == 0 || op.rfind("d2h_", 0) == 0) {  // host links
      return to_timing(run_host_copy(op, size, runs, next_seed()));
    }
    return to_timing(run_memory(op, size, runs, next_seed()));
  }

  Timing time_gemm(const std::string& kernel, Precision precision, int m, int n, int k, int runs) override {
    select();
    if (kernel == "wmma" && precision == Precision::fp16) return to_timing(run_wmma_fp16(m, n, k, runs, next_seed()));
    if (kernel == "cublaslt") {
      return to_timing(run_cublaslt(precision, m, n, k, runs, next_seed(), info_.compute_capability));
    }
    throw Error(fmt::format("gpuplan-bench has no {} kernel for {}", kernel, precision_name(precision)));
  }

  Timing time_collective(const std::string& op, double bytes, int runs) override {
    if (collectives_) return to_timing(collectives_->run(op, static_cast<std::size_t>(bytes), runs, next_seed()));
    throw Error("collectives asked of a gpuplan-bench device without them (" + info_.collective_note + ")");
  }

  Timing check_layer(const LayerShape& shape) override {
    select();
    return check_timing(check_transformer_layer(shape, next_seed()));
  }

  LayerTiming time_layer(const LayerShape& shape, int runs) override {
    select();
    LayerRun run = time_transformer_layer(shape, runs, next_seed());
    return {std::move(run.fwd_times_s), std::move(run.bwd_times_s), run.correct, std::move(run.check)};
  }

  Timing check_step(const StepShape& shape) override {
    select();
    return check_timing(check_training_step(shape, next_seed()));
  }

  StepTiming time_step(const StepShape& shape, int runs) override {
    select();
    StepRun run = time_training_step(shape, runs, next_seed());
    return {std::move(run.fwd_times_s), std::move(run.step_times_s), run.correct, std::move(run.check)};
  }

 private:
  // Collectives switch devices; everything else runs on ours.
  void select() const { GP_CUDA(cudaSetDevice(ordinal_)); }
  static Timing to_timing(KernelRun run) {
    return {std::move(run.times_s), run.correct, std::move(run.check), std::move(run.skipped)};
  }
  unsigned next_seed() { return seed_ = seed_ * 1664525u + 1013904223u; }  // fresh inputs every kernel

  int ordinal_;
  std::unique_ptr<Collectives> collectives_;
  BenchDeviceInfo info_;
  unsigned seed_ = 12345;
};

}  // namespace

int cuda_device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

std::unique_ptr<BenchDevice> open_cuda_device(int ordinal, std::unique_ptr<Collectives> collectives,
                                              std::string collective_note) {
  return std::make_unique<CudaBenchDevice>(ordinal, std::move(collectives), std::move(collective_note));
}

}  // namespace gpuplan::cuda
