// `gpuplan collective` as a library call: one collective (or an nccl-tests-style sweep of
// sizes) on a system and fabric, from the fitted model, with a calibration profile's measured
// curve in its place where one is given. Lives at the calibration layer because that overlay
// does; the model itself is cost/collective.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cost/collective.h"

namespace gpuplan {

// Fields named after the CLI flags; defaults are the CLI's.
struct CollectiveCommandRequest {
  std::string op;              // --op: allreduce, allgather, reducescatter, alltoall, broadcast, sendrecv
  std::string bytes;           // --bytes: "32MiB", "1GB", "4096"; empty with sweep
  int gpus = 0;                // --gpus
  std::string system;          // --system; empty = the fabric's
  std::optional<int> nodes;    // --nodes; unset = as few as hold --gpus
  int node_stride = 1;         // --node-stride
  std::string fabric;          // --fabric; empty = NICs only
  std::string algorithm = "auto";
  std::string dtype = "bf16";
  int concurrent = 1;          // --concurrent
  bool ideal = false;          // --ideal: line rate, no latency
  bool sweep = false;          // --sweep: 512 B ... 16 GiB, doubling
  std::string calibration;     // --calibration: gpuplan-bench profile measured on this system
};

// What the user asked, resolved: the request the model takes, and the header lines' words.
struct CollectiveQuery {
  CollectiveRequest request;
  std::string dtype = "bf16";
  double dtype_bytes = 2;
  bool ideal = false;
};

// One size under --calibration: the measured curve's time, or why it could not be applied.
struct CalibratedCollectiveRow {
  double bytes = 0;
  bool applied = false;
  std::string why;  // when !applied
  double time_s = 0;
  double busbw_bytes_per_s = 0;
  double model_time_s = 0;
  std::string how;
};

// One size of a --sweep: the model's estimate at `bytes`.
struct CollectiveSweepRow {
  double bytes = 0;
  CollectiveEstimate estimate;
};

struct CollectiveAnswer {
  CollectiveQuery query;
  CollectiveTopology topology;
  bool sweep = false;
  // One size (no --sweep): the chosen estimate, every candidate the tuner weighed, why the
  // choice won, and the busbw factor of the op on this many GPUs.
  CollectiveEstimate estimate;
  std::vector<CollectiveEstimate> candidates;
  std::string why;
  double busbw_factor = 0;
  // --sweep: one row per size of collective_sweep_sizes().
  std::vector<CollectiveSweepRow> sweep_rows;
  std::string calibration;  // the profile path; empty = none
  // Per size asked, in order; stops at the first size the profile cannot answer.
  std::vector<CalibratedCollectiveRow> calibrated;
};

// 512 B ... 16 GiB, doubling (nccl-tests -b 512 -e 16G -f 2).
std::vector<double> collective_sweep_sizes();

// Why `chosen` won among `candidates`, in one or two sentences (the answer's `why`).
std::string collective_why(const CollectiveQuery& query, const CollectiveTopology& topology,
                           const CollectiveEstimate& chosen, const std::vector<CollectiveEstimate>& candidates);

// Throws Error naming the flag, the value and the fix on bad input.
CollectiveAnswer answer_collective(const Catalog& catalog, const CollectiveCommandRequest& request);

}  // namespace gpuplan
