// sweep and monitor from Python: `gpuplan sweep SPEC.json` (sweep/sweep_request.h, in one
// process: the LocalTransport, as the CLI outside mpirun) and `gpuplan monitor --count N --json`
// (monitor/monitor.h over NVML) — the same library calls and writers as the CLI.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "common.h"
#include "core/error.h"
#include "kwargs.h"
#include "monitor/monitor.h"
#include "monitor/nvml_sampler.h"
#include "report/sweep_report.h"
#include "sweep/result.h"
#include "sweep/sweep_request.h"
#include "sweep/transport.h"

namespace gpuplan::py {
namespace {

using SweepResult = Result<SweepAnswer>;

// One process, as `gpuplan sweep SPEC.json` run on its own: prepare (every check), run, write.
SweepResult run_sweep_here(const pyb::object& spec_arg, const pyb::object& out_csv_arg, const pyb::object& out_json_arg,
                           const pyb::object& catalog_arg) {
  SweepRequest request;
  request.spec = path_arg(spec_arg, "sweep");
  if (!out_csv_arg.is_none()) request.out_csv = path_arg(out_csv_arg, "sweep(out_csv=)");
  if (!out_json_arg.is_none()) request.out_json = path_arg(out_json_arg, "sweep(out_json=)");
  CatalogPtr catalog = catalog_from(catalog_arg);
  pyb::gil_scoped_release release;  // the cells are searched on the spec's threads
  auto job = std::make_shared<SweepJob>(prepare_sweep(*catalog, request, true));
  LocalTransport transport;
  std::optional<SweepAnswer> answer = run_sweep(*job, transport);
  GP_ASSERT(answer, "the one process of a local sweep is rank 0");
  SweepResult result = make_result(catalog, std::move(*answer));
  result.keep = job;  // the answer points into the job's setup
  return result;
}

// `gpuplan monitor --count N --interval S --json`: the rounds as the CLI prints them (one JSON
// object per round), each a dict. Without an NVIDIA driver NVML cannot load: gpuplan.Error with
// the CLI's message (its exit code 3 there).
pyb::list monitor_rounds(long count, double interval_s, const std::string& nvml_library) {
  if (count < 1) {
    throw Error(
        fmt::format("monitor(count={}): take at least 1 round (the CLI's --count 0, until interrupted, has "
                    "no Python form: call monitor() in a loop)",
                    count));
  }
  if (!(interval_s > 0)) {
    throw Error(fmt::format("monitor(interval_s={}): a positive number of seconds between rounds", interval_s));
  }
  std::ostringstream out;
  {
    pyb::gil_scoped_release release;
    std::unique_ptr<GpuSampler> sampler = open_nvml_sampler(nvml_library);
    MonitorOptions options;
    options.interval_s = interval_s;
    options.count = count;
    options.json = true;
    MonitorIo io;
    io.out = &out;
    io.now_s = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    };
    io.sleep_s = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
    run_monitor(*sampler, options, io);
  }
  pyb::list rounds;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) rounds.append(json_to_py(nlohmann::ordered_json::parse(line)));
  }
  return rounds;
}

}  // namespace

void bind_sweep_monitor(pyb::module_& m) {
  result_class<SweepAnswer>(m, "SweepResult",
                            "A design-space study (gpuplan sweep): str() is the CLI's summary, to_dict() its --json;\n"
                            "the result files are written as the CLI writes them.")
      .def_property_readonly(
          "written", [](const SweepResult& r) { return r.get().written; },
          "The result files written, in order (the CSV, then the JSON).")
      .def_property_readonly(
          "cells",
          [](const SweepResult& r) {
            nlohmann::ordered_json rows = nlohmann::ordered_json::array();
            for (const SweepCellResult& c : r.get().merged.cells) rows.push_back(cell_result_json(c));
            return table(rows);
          },
          "Every cell's result as the JSON file's \"results\" hold them: a DataFrame where pandas is installed.");
  m.def("sweep", &run_sweep_here, pyb::arg("spec"), pyb::kw_only(), pyb::arg("out_csv") = pyb::none(),
        pyb::arg("out_json") = pyb::none(), pyb::arg("catalog") = pyb::none(),
        "`gpuplan sweep SPEC.json [--out-csv F] [--out-json F]`: models x GPUs x GPU counts, each cell\n"
        "through the plan search, in this process; writes the spec's result files (or out_csv=, out_json=).");
  m.def("monitor", &monitor_rounds, pyb::kw_only(), pyb::arg("count") = 1, pyb::arg("interval_s") = 1.0,
        pyb::arg("nvml_library") = std::string(kNvmlLibrary),
        "`gpuplan monitor --count N --interval S --json`: N rounds of every local GPU through NVML, each a\n"
        "dict as the CLI prints it. Raises gpuplan.Error where NVML cannot load (no NVIDIA driver).");
}

}  // namespace gpuplan::py
