// Host↔device bandwidth for gpuplan-bench: cudaMemcpy between device memory and pinned
// (cudaMallocHost) or pageable (plain new[]) host memory, each direction. The far end is
// poisoned first and checked word by word after the runs: on the device by the verify kernel,
// on the host by recomputing the pattern.
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "cuda_util.h"
#include "kernels.h"

namespace gpuplan::cuda {
namespace {

// Host words, pinned or pageable; pageable pages are touched (written) before any timing, so
// first-touch page faults are not measured.
class HostWords {
 public:
  HostWords(std::size_t words, bool pinned) : pinned_(pinned) {
    if (pinned_) {
      void* ptr = nullptr;
      GP_CUDA(cudaMallocHost(&ptr, words * sizeof(unsigned)));
      data_ = static_cast<unsigned*>(ptr);
    } else {
      pageable_ = std::make_unique<unsigned[]>(words);
      data_ = pageable_.get();
    }
  }
  ~HostWords() {
    if (pinned_) cudaFreeHost(data_);
  }
  HostWords(const HostWords&) = delete;
  HostWords& operator=(const HostWords&) = delete;
  unsigned* data() const { return data_; }

 private:
  bool pinned_;
  std::unique_ptr<unsigned[]> pageable_;
  unsigned* data_ = nullptr;
};

}  // namespace

KernelRun run_host_copy(const std::string& op, std::size_t bytes, int runs, unsigned seed) {
  const bool to_device = op == "h2d_pinned" || op == "h2d_pageable";
  const bool pinned = op == "h2d_pinned" || op == "d2h_pinned";
  if (!to_device && op != "d2h_pinned" && op != "d2h_pageable") throw std::invalid_argument("unknown host copy " + op);
  const std::size_t words = bytes / sizeof(unsigned);
  const std::size_t copy_bytes = words * sizeof(unsigned);
  HostWords host(words, pinned);
  DeviceBuffer<unsigned> device(words);
  KernelRun run;
  if (to_device) {
    for (std::size_t i = 0; i < words; ++i) host.data()[i] = expected_word(i, seed);
    GP_CUDA(cudaMemset(device.ptr, 0xFF, copy_bytes));
    // Pinned memory is copied asynchronously on the default stream, pageable memory through the
    // driver's staging buffers (cudaMemcpy returns once the host side is done; the stop event
    // waits for the DMA).
    run.times_s = time_runs(
        [&] {
          if (pinned) GP_CUDA(cudaMemcpyAsync(device.ptr, host.data(), copy_bytes, cudaMemcpyHostToDevice, nullptr));
          else GP_CUDA(cudaMemcpy(device.ptr, host.data(), copy_bytes, cudaMemcpyHostToDevice));
        },
        runs);
    const unsigned long long wrong = wrong_words(device.ptr, words, seed);
    run.correct = wrong == 0;
    run.check = fmt::format("{} of {} words wrong on the device", wrong, words);
  } else {
    fill_words(device.ptr, words, seed);
    std::memset(host.data(), 0xFF, copy_bytes);
    run.times_s = time_runs(
        [&] {
          if (pinned) GP_CUDA(cudaMemcpyAsync(host.data(), device.ptr, copy_bytes, cudaMemcpyDeviceToHost, nullptr));
          else GP_CUDA(cudaMemcpy(host.data(), device.ptr, copy_bytes, cudaMemcpyDeviceToHost));
        },
        runs);
    GP_CUDA(cudaDeviceSynchronize());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < words; ++i) wrong += host.data()[i] != expected_word(i, seed);
    run.correct = wrong == 0;
    run.check = fmt::format("{} of {} words wrong on the host", wrong, words);
  }
  return run;
}

}  // namespace gpuplan::cuda
