#include "monitor/monitor.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/table.h"

namespace gpuplan {
namespace {

std::string csv_number(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : ""; }

// CSV quoting (RFC 4180): GPU names hold no commas today, but a user-set one might.
std::string csv_text(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string cell(const std::optional<double>& v, double scale, int decimals) {
  return v ? fmt_number(*v * scale, decimals) : "-";
}

std::string pair_cell(const std::optional<double>& a, const std::optional<double>& b, double scale, int decimals) {
  if (!a && !b) return "-";
  return cell(a, scale, decimals) + " / " + cell(b, scale, decimals);
}

void put(nlohmann::ordered_json& j, const char* key, const std::optional<double>& v) {
  j[key] = v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

const std::vector<std::string>& monitor_csv_columns() {
  static const std::vector<std::string> columns = {
      "time_s",           "index",          "name",           "uuid",
      "gpu_util_pct",     "memory_util_pct", "memory_used_bytes", "memory_total_bytes",
      "temperature_c",    "power_w",        "power_limit_w",  "sm_clock_hz",
      "memory_clock_hz",  "throttle_reasons_mask", "throttle_reasons", "pcie_tx_bytes_per_s",
      "pcie_rx_bytes_per_s", "nvlink_tx_bytes_per_s", "nvlink_rx_bytes_per_s"};
  return columns;
}

std::string monitor_csv_row(double time_s, const GpuSample& s) {
  std::vector<std::string> cells = {
      fmt::format("{:.3f}", time_s), std::to_string(s.index), csv_text(s.name), csv_text(s.uuid),
      csv_number(s.gpu_util_pct), csv_number(s.memory_util_pct), csv_number(s.memory_used_bytes),
      csv_number(s.memory_total_bytes), csv_number(s.temperature_c), csv_number(s.power_w),
      csv_number(s.power_limit_w), csv_number(s.sm_clock_hz), csv_number(s.memory_clock_hz),
      s.throttle_reasons ? fmt::format("{:#x}", *s.throttle_reasons) : "",
      s.throttle_reasons ? throttle_reasons_text(*s.throttle_reasons) : "", csv_number(s.pcie_tx_bytes_per_s),
      csv_number(s.pcie_rx_bytes_per_s), csv_number(s.nvlink_tx_bytes_per_s), csv_number(s.nvlink_rx_bytes_per_s)};
  GP_ASSERT(cells.size() == monitor_csv_columns().size(), "one cell per CSV column");
  return fmt::format("{}\n", fmt::join(cells, ","));
}

std::string monitor_table_text(double time_s, const std::vector<GpuSample>& round) {
  TextTable table({"gpu", "name", "util %", "mem util %", "memory GB used / total", "temp C", "power W / limit",
                   "SM MHz", "mem MHz", "PCIe MB/s tx / rx", "NVLink GB/s tx / rx", "throttle"},
                  {TextTable::Align::right, TextTable::Align::left, TextTable::Align::right,
                   TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
                   TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
                   TextTable::Align::right, TextTable::Align::right, TextTable::Align::left});
  for (const GpuSample& s : round) {
    table.add_row({std::to_string(s.index), s.name, cell(s.gpu_util_pct, 1, 0), cell(s.memory_util_pct, 1, 0),
                   pair_cell(s.memory_used_bytes, s.memory_total_bytes, 1e-9, 1), cell(s.temperature_c, 1, 0),
                   pair_cell(s.power_w, s.power_limit_w, 1, 0), cell(s.sm_clock_hz, 1e-6, 0),
                   cell(s.memory_clock_hz, 1e-6, 0), pair_cell(s.pcie_tx_bytes_per_s, s.pcie_rx_bytes_per_s, 1e-6, 0),
                   pair_cell(s.nvlink_tx_bytes_per_s, s.nvlink_rx_bytes_per_s, 1e-9, 1),
                   s.throttle_reasons ? throttle_reasons_text(*s.throttle_reasons) : "-"});
  }
  return fmt::format("t = {:.1f} s\n{}", time_s, table.render());
}

nlohmann::ordered_json monitor_round_json(double time_s, const std::vector<GpuSample>& round) {
  nlohmann::ordered_json j;
  j["time_s"] = time_s;
  j["gpus"] = nlohmann::ordered_json::array();
  for (const GpuSample& s : round) {
    nlohmann::ordered_json g;
    g["index"] = s.index;
    g["name"] = s.name;
    g["uuid"] = s.uuid;
    put(g, "gpu_util_pct", s.gpu_util_pct);
    put(g, "memory_util_pct", s.memory_util_pct);
    put(g, "memory_used_bytes", s.memory_used_bytes);
    put(g, "memory_total_bytes", s.memory_total_bytes);
    put(g, "temperature_c", s.temperature_c);
    put(g, "power_w", s.power_w);
    put(g, "power_limit_w", s.power_limit_w);
    put(g, "sm_clock_hz", s.sm_clock_hz);
    put(g, "memory_clock_hz", s.memory_clock_hz);
    if (s.throttle_reasons) {
      g["throttle_reasons_mask"] = *s.throttle_reasons;
      g["throttle_reasons"] = throttle_reason_names(*s.throttle_reasons);
    } else {
      g["throttle_reasons_mask"] = nullptr;
      g["throttle_reasons"] = nullptr;
    }
    put(g, "pcie_tx_bytes_per_s", s.pcie_tx_bytes_per_s);
    put(g, "pcie_rx_bytes_per_s", s.pcie_rx_bytes_per_s);
    put(g, "nvlink_tx_bytes_per_s", s.nvlink_tx_bytes_per_s);
    put(g, "nvlink_rx_bytes_per_s", s.nvlink_rx_bytes_per_s);
    j["gpus"].push_back(std::move(g));
  }
  return j;
}

void run_monitor(GpuSampler& sampler, const MonitorOptions& options, const MonitorIo& io) {
  GP_ASSERT(io.now_s && io.sleep_s, "the monitor needs a clock");
  if (io.out && !options.json) *io.out << sampler.description() << "\n";
  if (io.csv) *io.csv << fmt::format("{}\n", fmt::join(monitor_csv_columns(), ",")) << std::flush;
  const double start_s = io.now_s();
  std::vector<GpuSample> previous;
  double previous_s = 0;
  for (long round_idx = 0; options.count == 0 || round_idx < options.count; ++round_idx) {
    if (round_idx > 0) io.sleep_s(options.interval_s);
    const double time_s = io.now_s() - start_s;
    std::vector<GpuSample> round;
    for (unsigned gpu_idx = 0; gpu_idx < sampler.device_count(); ++gpu_idx) {
      round.push_back(sampler.sample(gpu_idx));
      if (gpu_idx < previous.size()) fill_nvlink_rates(previous[gpu_idx], round.back(), time_s - previous_s);
    }
    if (io.out) {
      if (options.json) *io.out << monitor_round_json(time_s, round).dump() << "\n";
      else *io.out << "\n" << monitor_table_text(time_s, round);
      io.out->flush();
    }
    if (io.csv) {
      for (const GpuSample& s : round) *io.csv << monitor_csv_row(time_s, s);
      io.csv->flush();
    }
    previous = std::move(round);
    previous_s = time_s;
  }
}

}  // namespace gpuplan
