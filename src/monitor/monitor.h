// `gpuplan monitor`: sample every GPU at an interval and print a table, CSV rows (like
// `nvidia-smi --query-gpu=... --format=csv`) or JSON. Works on any GpuSampler, so the tests
// drive it with a fake.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "monitor/sample.h"

namespace gpuplan {

struct MonitorOptions {
  double interval_s = 1.0;
  long count = 0;     // rounds to take; 0 = until interrupted
  bool json = false;  // one JSON object per round on `out` instead of a table
};

// Where the rounds go, and how time passes (real clock and sleep in the CLI, fakes in tests).
struct MonitorIo {
  std::ostream* out = nullptr;  // table or JSON; null = quiet
  std::ostream* csv = nullptr;  // CSV rows (header first); null = none
  std::function<double()> now_s;
  std::function<void(double)> sleep_s;
};

// The CSV columns, in order (units in the names, SI).
const std::vector<std::string>& monitor_csv_columns();
std::string monitor_csv_row(double time_s, const GpuSample& s);
std::string monitor_table_text(double time_s, const std::vector<GpuSample>& round);
nlohmann::ordered_json monitor_round_json(double time_s, const std::vector<GpuSample>& round);

// Takes `options.count` rounds (or runs forever) `interval_s` apart; every round samples each
// GPU once, fills NVLink rates from the previous round and writes to every sink, flushed.
void run_monitor(GpuSampler& sampler, const MonitorOptions& options, const MonitorIo& io);

}  // namespace gpuplan
