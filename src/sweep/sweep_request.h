// `gpuplan sweep` as library calls: a SweepRequest (the spec file and the output overrides)
// is prepared on every rank — everything that can reject it, before any rank starts work —
// then run over a SweepTransport (one process, or the ranks of mpirun); rank 0 gets the
// SweepAnswer (merged cells, files written), written by report/sweep_report.h.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/progress.h"
#include "sweep/merge.h"
#include "sweep/setup.h"
#include "sweep/transport.h"

namespace gpuplan {

struct SweepRequest {
  std::string spec;      // the spec's path (docs/sweep.md)
  std::string out_csv;   // "" = the spec's output.csv
  std::string out_json;  // "" = the spec's output.json
};

struct SweepJob {
  std::vector<std::shared_ptr<ModelSpec>> owned_models;  // models read from config.json files
  SweepSetup setup;
  std::chrono::steady_clock::time_point start;  // when the request was read (for elapsed_s)
};

// Reads the spec (with the request's output overrides) and resolves it against the catalog:
// throws Error naming the spec's key, or when there is nothing to write. `writes` (rank 0)
// also checks that the output files can be written, so a typo fails before a long sweep.
SweepJob prepare_sweep(const Catalog& catalog, const SweepRequest& request, bool writes);

// Search threads per rank: the spec's, else this machine's cores shared by its ranks.
int sweep_threads_per_rank(const SweepSpec& spec, const SweepTransport& transport);

struct SweepAnswer {
  const SweepSetup* setup = nullptr;  // the job's; the job outlives the answer
  MergedSweep merged;
  double elapsed_s = 0;
  int threads = 1;                   // search threads per rank
  std::vector<std::string> written;  // result files, in order
};

// Runs this rank's cells, gathers on rank 0 and writes the result files there. Returns the
// answer on rank 0, nullopt on the others. `progress` (core/progress.h) hears of each of this
// rank's cells done; the CLI shows rank 0's.
std::optional<SweepAnswer> run_sweep(const SweepJob& job, SweepTransport& transport,
                                     const ProgressSink* progress = nullptr);

}  // namespace gpuplan
