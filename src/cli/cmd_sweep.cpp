// gpuplan sweep SPEC.json [--out-csv F] [--out-json F] [--json]: a design-space study —
// models × GPUs × GPU counts, each cell through the plan search — in one process, or split over
// the ranks of `mpirun -np N gpuplan sweep SPEC.json`; rank 0 writes one merged result.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "core/units.h"
#include "core/table.h"
#include "report/train_report.h"
#include "sweep/merge.h"
#include "sweep/mpi_transport.h"
#include "sweep/run.h"
#include "sweep/write.h"

namespace gpuplan {
namespace {

struct SweepFlags {
  std::string spec;
  std::string out_csv;
  std::string out_json;
  bool json = false;
};

// The spec's models in its order: zoo ids through the catalog, files relative to the spec.
std::vector<const ModelSpec*> resolve_models(CliContext& ctx, const SweepSpec& spec,
                                             std::vector<std::shared_ptr<ModelSpec>>& owned) {
  std::vector<const ModelSpec*> models;
  owned.resize(spec.models.size());
  for (std::size_t i = 0; i < spec.models.size(); ++i) {
    const std::string& entry = spec.models[i];
    try {
      models.push_back(&ctx.resolve_model(is_model_path(entry) ? spec_relative_path(spec, entry) : entry, owned[i]));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: 'models[{}]': {}", spec.file, i, e.what()));
    }
  }
  return models;
}

// Search threads per rank: the spec's, else this machine's cores shared by its ranks.
int threads_per_rank(const SweepSpec& spec, const SweepTransport& transport) {
  if (spec.search.threads > 0) return spec.search.threads;
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return std::max(1, cores / std::max(1, transport.ranks_on_node()));
}

std::string summary_text(const SweepSetup& setup, const MergedSweep& merged, double elapsed_s, int threads,
                         const std::vector<std::string>& written) {
  const SweepSpec& spec = setup.spec;
  std::string out = fmt::format(
      "sweep {}: {} cells ({} models × {} GPUs × {} counts), objective {}, on {} rank{} × {} thread{} in {:.2f} s\n",
      spec.file, setup.cells.size(), spec.models.size(), spec.gpus.size(), spec.gpu_counts.size(),
      objective_name(spec.objective), merged.ranks.size(), merged.ranks.size() == 1 ? "" : "s", threads,
      threads == 1 ? "" : "s", elapsed_s);
  TextTable t({"model", "GPU", "GPUs", "best plan", "step", "tokens/s", "MFU", "memory", "$/step"},
              {TextTable::Align::left, TextTable::Align::left, TextTable::Align::right, TextTable::Align::left,
               TextTable::Align::right, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right});
  for (const SweepCellResult& c : merged.cells) {
    const SweepCell& cell = setup.cells[static_cast<std::size_t>(c.cell)];
    const ModelSpec& model = *setup.models[static_cast<std::size_t>(cell.model_idx)];
    if (!c.feasible()) {
      t.add_row({c.model, c.gpu, std::to_string(c.gpus), "no plan fits: " + c.reason, "-", "-", "-",
                 c.closest ? fmt::format("{:.1f} GiB", c.closest->memory_bytes / kGiB) : "-", "-"});
      continue;
    }
    const SweepPlanRow& best = c.top.front();
    t.add_row({c.model, c.gpu, std::to_string(c.gpus), plan_summary(best.plan, model), format_seconds(best.step_time_s),
               fmt_number(best.tokens_per_s), fmt::format("{:.1f}%", 100 * best.mfu),
               fmt::format("{:.1f} GiB", best.memory_bytes / kGiB),
               c.usd_per_gpu_hour > 0 ? fmt::format("{:.2f}", best.usd_per_step) : "-"});
  }
  out += "\n" + t.render();
  if (merged.ranks.size() > 1) {
    out += "\nper rank:";
    for (const RankTiming& r : merged.ranks)
      out += fmt::format(" {}: {} cells {:.2f} s;", r.rank, r.cells, r.elapsed_s);
    out.back() = '\n';
  }
  for (const std::string& path : written) out += fmt::format("wrote {}\n", path);
  return out;
}

nlohmann::ordered_json summary_json(const SweepSetup& setup, const MergedSweep& merged, double elapsed_s, int threads) {
  const SweepSpec& spec = setup.spec;
  nlohmann::ordered_json j;
  j["spec"] = spec.file;
  j["cells"] = setup.cells.size();
  j["infeasible_cells"] =
      std::count_if(merged.cells.begin(), merged.cells.end(), [](const SweepCellResult& c) { return !c.feasible(); });
  j["ranks"] = merged.ranks.size();
  j["threads_per_rank"] = threads;
  j["elapsed_s"] = elapsed_s;
  j["per_rank"] = nlohmann::ordered_json::array();
  for (const RankTiming& r : merged.ranks) {
    j["per_rank"].push_back({{"rank", r.rank}, {"cells", r.cells}, {"elapsed_s", r.elapsed_s}});
  }
  j["csv"] = spec.out_csv;
  j["json"] = spec.out_json;
  return j;
}

}  // namespace

void setup_sweep(CliCommand& cmd, CliContext& ctx) {
  auto f = std::make_shared<SweepFlags>();
  cmd.add_option("spec", f->spec, "Sweep spec (JSON; docs/sweep.md)")->required();
  cmd.add_option("--out-csv", f->out_csv, "Write the CSV here instead of the spec's output.csv");
  cmd.add_option("--out-json", f->out_json, "Write the JSON here instead of the spec's output.json");
  cmd.add_flag("--json", f->json, "Print the run's summary (cells, ranks, timings, files) as one JSON object");
  cmd.callback([f, &ctx] {
    const auto start = std::chrono::steady_clock::now();
    SweepSpec spec = load_sweep_spec(f->spec);
    if (!f->out_csv.empty()) spec.out_csv = f->out_csv;
    if (!f->out_json.empty()) spec.out_json = f->out_json;
    if (spec.out_csv.empty() && spec.out_json.empty()) {
      throw Error(
          fmt::format("{}: nothing to write: set output.csv or output.json in the spec, or pass --out-csv or "
                      "--out-json",
                      spec.file));
    }
    // Everything that can reject the spec runs on every rank before any rank starts work.
    std::vector<std::shared_ptr<ModelSpec>> owned;
    const SweepSetup setup = make_sweep_setup(ctx.catalog(), spec, resolve_models(ctx, spec, owned));

    const LaunchInfo launch = detect_launch([](const char* name) { return std::getenv(name); });
    if (launch.rank == 0) {
      // Only rank 0 writes. Should this fail under mpirun, the launcher stops the other ranks.
      for (const std::string& path : {spec.out_csv, spec.out_json}) {
        if (!path.empty()) check_writable(path);
      }
    }
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
    const int threads = threads_per_rank(spec, *transport);
    const std::string payload = run_rank(setup, transport->rank(), transport->size(), threads);
    const std::vector<std::string> payloads = transport->gather_to_root(payload);
    if (transport->rank() != 0) return;

    const MergedSweep merged = merge_payloads(payloads, setup.cells.size());
    std::vector<std::string> written;
    if (!spec.out_csv.empty()) {
      write_text_file(spec.out_csv, sweep_csv(spec, merged.cells));
      written.push_back(spec.out_csv);
    }
    if (!spec.out_json.empty()) {
      write_text_file(spec.out_json, sweep_json(spec, merged.cells));
      written.push_back(spec.out_json);
    }
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (f->json) {
      ctx.print_json(summary_json(setup, merged, elapsed_s, threads));
    } else {
      ctx.out << summary_text(setup, merged, elapsed_s, threads, written);
    }
  });
}

}  // namespace gpuplan
