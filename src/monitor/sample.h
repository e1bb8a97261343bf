// One reading of one GPU, as a monitor samples it (SI units: bytes, bytes/s, Hz, W, °C), and
// the interface a sampler implements: NVML on a real machine, an in-memory fake in the tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

// Every figure is optional: NVML answers "not supported" per GPU and per query (no NVLink on a
// PCIe card, no power reading on some boards), and the monitor prints such a figure as blank.
struct GpuSample {
  unsigned index = 0;
  std::string name;
  std::string uuid;
  std::optional<double> gpu_util_pct;     // share of time a kernel was running
  std::optional<double> memory_util_pct;  // share of time device memory was read or written
  std::optional<double> memory_used_bytes;
  std::optional<double> memory_total_bytes;
  std::optional<double> temperature_c;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;  // the enforced limit
  std::optional<double> sm_clock_hz;
  std::optional<double> memory_clock_hz;
  std::optional<std::uint64_t> throttle_reasons;  // NVML's clocks-event bitmask
  std::optional<double> pcie_tx_bytes_per_s;      // NVML averages these over ~20 ms
  std::optional<double> pcie_rx_bytes_per_s;
  // NVLink data counters are cumulative since the driver loaded; the monitor turns two readings
  // into a rate (fill_nvlink_rates), so the first round has no NVLink rate.
  std::optional<double> nvlink_tx_total_bytes;
  std::optional<double> nvlink_rx_total_bytes;
  std::optional<double> nvlink_tx_bytes_per_s;
  std::optional<double> nvlink_rx_bytes_per_s;
};

class GpuSampler {
 public:
  virtual ~GpuSampler() = default;
  // "NVML 12.580.82, driver 580.82.07" or "fake"; shown once at the top of the output.
  virtual std::string description() const = 0;
  virtual unsigned device_count() const = 0;
  // Reads GPU `index` now. Figures the GPU does not support are left empty, never an error.
  virtual GpuSample sample(unsigned index) = 0;
};

// NVML clocks-event ("throttle") reasons, bit by bit, named as nvidia-smi -q names them.
std::vector<std::string> throttle_reason_names(std::uint64_t mask);
// "none", or the names joined with '|' ("sw_power_cap|hw_thermal_slowdown").
std::string throttle_reasons_text(std::uint64_t mask);

// The NVLink rate between two readings of the same GPU `elapsed_s` apart. A counter that went
// backwards (driver reload, wrap) gives no rate rather than a negative one.
void fill_nvlink_rates(const GpuSample& previous, GpuSample& current, double elapsed_s);

}  // namespace gpuplan
