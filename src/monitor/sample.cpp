#include "monitor/sample.h"

#include <fmt/format.h>

namespace gpuplan {
namespace {

// nvmlClocksEventReason* / nvmlClocksThrottleReason* in nvml.h (same bits under both names).
struct ThrottleBit {
  std::uint64_t bit;
  const char* name;
};
constexpr ThrottleBit kThrottleBits[] = {
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
};

std::optional<double> rate(std::optional<double> before, std::optional<double> after, double elapsed_s) {
  if (!before || !after || !(elapsed_s > 0) || *after < *before) return std::nullopt;
  return (*after - *before) / elapsed_s;
}

}  // namespace

std::vector<std::string> throttle_reason_names(std::uint64_t mask) {
  std::vector<std::string> names;
  std::uint64_t known = 0;
  for (const ThrottleBit& b : kThrottleBits) {
    known |= b.bit;
    if (mask & b.bit) names.emplace_back(b.name);
  }
  if (const std::uint64_t rest = mask & ~known) names.push_back(fmt::format("unknown_{:#x}", rest));
  return names;
}

std::string throttle_reasons_text(std::uint64_t mask) {
  const auto names = throttle_reason_names(mask);
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, "|"));
}

void fill_nvlink_rates(const GpuSample& previous, GpuSample& current, double elapsed_s) {
  current.nvlink_tx_bytes_per_s = rate(previous.nvlink_tx_total_bytes, current.nvlink_tx_total_bytes, elapsed_s);
  current.nvlink_rx_bytes_per_s = rate(previous.nvlink_rx_total_bytes, current.nvlink_rx_total_bytes, elapsed_s);
}

}  // namespace gpuplan
