// gpuplan sweep SPEC.json [--out-csv F] [--out-json F] [--json]: a design-space study —
// models × GPUs × GPU counts, each cell through the plan search — in one process, or split over
// the ranks of `mpirun -np N gpuplan sweep SPEC.json`; rank 0 writes one merged result.
// Flags → SweepRequest → prepare_sweep / run_sweep (sweep/sweep_request.h) → report/sweep_report.h;
// only the choice of transport (MPI or one process) lives here.
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/progress_printer.h"
#include "report/sweep_report.h"
#include "sweep/mpi_transport.h"

namespace gpuplan {

void setup_sweep(CliCommand& cmd, CliContext& ctx) {
  struct Flags {
    SweepRequest request;
    bool json = false;
  };
  auto f = std::make_shared<Flags>();
  cmd.add_option("spec", f->request.spec, "Sweep spec (JSON; docs/sweep.md)")->required();
  cmd.add_option("--out-csv", f->request.out_csv, "Write the CSV here instead of the spec's output.csv");
  cmd.add_option("--out-json", f->request.out_json, "Write the JSON here instead of the spec's output.json");
  cmd.add_flag("--json", f->json, "Print the run's summary (cells, ranks, timings, files) as one JSON object");
  cmd.callback([f, &ctx] {
    const LaunchInfo launch = detect_launch([](const char* name) { return std::getenv(name); });
    // Everything that can reject the spec runs on every rank before any rank starts work;
    // only rank 0 writes. Should that fail under mpirun, the launcher stops the other ranks.
    const SweepJob job = prepare_sweep(ctx.catalog(), f->request, launch.rank == 0);

    std::unique_ptr<SweepTransport> transport;
    if (launch.size > 1) transport = open_mpi_transport();
    if (!transport) {
      if (launch.size > 1) {
        // Without MPI the ranks cannot split the work; N copies writing one file would race.
        if (launch.rank != 0) return;
        ctx.err << fmt::format(
            "gpuplan sweep: note: started as rank 0 of {} by an MPI launcher, but this gpuplan was built without "
            "MPI (CMake found none, or GPUPLAN_MPI is OFF; install libopenmpi-dev and re-run cmake): rank 0 runs "
            "the whole sweep alone and the other ranks exit\n",
            launch.size);
      }
      transport = std::make_unique<LocalTransport>();
    }
    // Progress of rank 0's share only: N ranks drawing on one terminal would garble it.
    std::optional<ProgressPrinter> shown;
    if (transport->rank() == 0) shown.emplace(ctx.err, "sweep", "cells");
    const std::optional<SweepAnswer> a = run_sweep(job, *transport, shown ? &shown->sink() : nullptr);
    if (shown) shown->finish();
    if (!a) return;  // not rank 0
    ctx.print(*a, f->json);
  });
}

}  // namespace gpuplan
