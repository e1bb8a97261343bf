#include "sweep/sweep_request.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "catalog/resolve_model.h"
#include "core/error.h"
#include "sweep/run.h"
#include "sweep/write.h"

namespace gpuplan {
namespace {

// The spec's models in its order: zoo ids through the catalog, files relative to the spec.
std::vector<const ModelSpec*> resolve_models(const Catalog& catalog, const SweepSpec& spec,
                                             std::vector<std::shared_ptr<ModelSpec>>& owned) {
  std::vector<const ModelSpec*> models;
  owned.resize(spec.models.size());
  for (std::size_t i = 0; i < spec.models.size(); ++i) {
    const std::string& entry = spec.models[i];
    try {
      models.push_back(
          &resolve_model(catalog, is_model_path(entry) ? spec_relative_path(spec, entry) : entry, owned[i]));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: 'models[{}]': {}", spec.file, i, e.what()));
    }
  }
  return models;
}

}  // namespace

SweepJob prepare_sweep(const Catalog& catalog, const SweepRequest& request, bool writes) {
  SweepJob job;
  job.start = std::chrono::steady_clock::now();
  SweepSpec spec = load_sweep_spec(request.spec);
  if (!request.out_csv.empty()) spec.out_csv = request.out_csv;
  if (!request.out_json.empty()) spec.out_json = request.out_json;
  if (spec.out_csv.empty() && spec.out_json.empty()) {
    throw Error(
        fmt::format("{}: nothing to write: set output.csv or output.json in the spec, or pass --out-csv or "
                    "--out-json",
                    spec.file));
  }
  job.setup = make_sweep_setup(catalog, spec, resolve_models(catalog, spec, job.owned_models));
  if (writes) {
    for (const std::string& path : {spec.out_csv, spec.out_json}) {
      if (!path.empty()) check_writable(path);
    }
  }
  return job;
}

int sweep_threads_per_rank(const SweepSpec& spec, const SweepTransport& transport) {
  if (spec.search.threads > 0) return spec.search.threads;
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return std::max(1, cores / std::max(1, transport.ranks_on_node()));
}

std::optional<SweepAnswer> run_sweep(const SweepJob& job, SweepTransport& transport, const ProgressSink* progress) {
  const SweepSetup& setup = job.setup;
  const SweepSpec& spec = setup.spec;
  const int threads = sweep_threads_per_rank(spec, transport);
  const std::string payload = run_rank(setup, transport.rank(), transport.size(), threads, progress);
  const std::vector<std::string> payloads = transport.gather_to_root(payload);
  if (transport.rank() != 0) return std::nullopt;

  SweepAnswer a;
  a.setup = &setup;
  a.threads = threads;
  a.merged = merge_payloads(payloads, setup.cells.size());
  if (!spec.out_csv.empty()) {
    write_text_file(spec.out_csv, sweep_csv(spec, a.merged.cells));
    a.written.push_back(spec.out_csv);
  }
  if (!spec.out_json.empty()) {
    write_text_file(spec.out_json, sweep_json(spec, a.merged.cells));
    a.written.push_back(spec.out_json);
  }
  a.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - job.start).count();
  return a;
}

}  // namespace gpuplan
