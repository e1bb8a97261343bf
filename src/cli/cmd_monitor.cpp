// gpuplan monitor [--interval S] [--count N] [--csv FILE] [--json]: NVML sampling of every GPU.
#include <chrono>
#include <fstream>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "monitor/monitor.h"
#include "monitor/nvml_sampler.h"

namespace gpuplan {

void setup_monitor(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    MonitorOptions monitor;
    std::string csv_path;
    std::string nvml_library = kNvmlLibrary;
  };
  auto opts = std::make_shared<Opts>();
  cmd.add_option("--interval", opts->monitor.interval_s, "Seconds between samples (default 1)");
  cmd.add_option("--count", opts->monitor.count, "Number of samples to take (default 0: until interrupted)");
  cmd.add_option("--csv", opts->csv_path, "Also write every sample as CSV rows to FILE");
  cmd.add_flag("--json", opts->monitor.json, "One JSON object per sample (JSON Lines) instead of a table");
  cmd.add_option("--nvml-library", opts->nvml_library, "NVML library to load (default libnvidia-ml.so.1)");
  cmd.callback([opts, &ctx] {
    if (!(opts->monitor.interval_s > 0)) {
      throw Error(fmt::format("--interval must be a positive number of seconds, not {}", opts->monitor.interval_s));
    }
    if (opts->monitor.count < 0) throw Error(fmt::format("--count must be 0 or more, not {}", opts->monitor.count));
    // Open NVML first, so a machine without a GPU leaves no empty CSV file behind.
    std::unique_ptr<GpuSampler> sampler = open_nvml_sampler(opts->nvml_library);
    std::ofstream csv;
    if (!opts->csv_path.empty()) {
      csv.open(opts->csv_path);
      if (!csv) throw Error(fmt::format("cannot write --csv file '{}'", opts->csv_path));
    }
    MonitorIo io;
    io.out = &ctx.out;
    io.csv = opts->csv_path.empty() ? nullptr : &csv;
    io.now_s = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    };
    io.sleep_s = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
    run_monitor(*sampler, opts->monitor, io);
  });
}

}  // namespace gpuplan
