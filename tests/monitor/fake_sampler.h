// An in-memory GpuSampler for the tests: returns scripted readings, one list per GPU, advancing
// one reading per call (the last one repeats).
#pragma once

#include <string>
#include <vector>

#include "monitor/sample.h"

namespace gpuplan::testing {

class FakeSampler final : public GpuSampler {
 public:
  explicit FakeSampler(std::vector<std::vector<GpuSample>> readings) : readings_(std::move(readings)),
                                                                        next_(readings_.size(), 0) {}
  std::string description() const override { return "fake sampler"; }
  unsigned device_count() const override { return static_cast<unsigned>(readings_.size()); }
  GpuSample sample(unsigned index) override {
    const auto& list = readings_.at(index);
    GpuSample s = list.at(std::min(next_[index], list.size() - 1));
    ++next_[index];
    s.index = index;
    return s;
  }

 private:
  std::vector<std::vector<GpuSample>> readings_;
  std::vector<std::size_t> next_;
};

// An H100 under load, power-capped, with NVLink counters at `nvlink_kib` KiB.
inline GpuSample busy_h100(double nvlink_tx_bytes = 0) {
  GpuSample s;
  s.name = "NVIDIA H100 80GB HBM3";
  s.uuid = "GPU-fake-0";
  s.gpu_util_pct = 98;
  s.memory_util_pct = 41;
  s.memory_used_bytes = 71.5e9;
  s.memory_total_bytes = 85.0e9;
  s.temperature_c = 67;
  s.power_w = 699.5;
  s.power_limit_w = 700;
  s.sm_clock_hz = 1755e6;
  s.memory_clock_hz = 2619e6;
  s.throttle_reasons = 0x4;  // sw_power_cap
  s.pcie_tx_bytes_per_s = 12e6;
  s.pcie_rx_bytes_per_s = 34e6;
  s.nvlink_tx_total_bytes = nvlink_tx_bytes;
  s.nvlink_rx_total_bytes = nvlink_tx_bytes / 2;
  return s;
}

}  // namespace gpuplan::testing
