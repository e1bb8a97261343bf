#include "calibration/collective_question.h"

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "calibration/collective_calibration.h"
#include "calibration/nccl_tests_log.h"
#include "calibration/profile.h"
#include "catalog/system_choice.h"
#include "core/error.h"
#include "core/units.h"

namespace gpuplan {
namespace {

double dtype_bytes(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp32") return 4;
  throw Error(fmt::format("unknown --dtype '{}'; use bf16, fp16 or fp32", dtype));
}

// --gpus N [--nodes M] on a system of G GPUs per domain -> M domains x N/M GPUs.
void set_group_shape(CollectiveRequest& r, const CollectiveCommandRequest& o, const System& system) {
  if (o.gpus < 1) throw Error(fmt::format("--gpus must be at least 1, got {}", o.gpus));
  if (o.nodes && *o.nodes < 1) {
    throw Error(fmt::format("--nodes {}: must be at least 1; leave --nodes out for as few as hold --gpus", *o.nodes));
  }
  if (o.node_stride < 1) throw Error(fmt::format("--node-stride must be at least 1, got {}", o.node_stride));
  int nodes = o.nodes.value_or(0);
  if (nodes == 0) {
    if (o.gpus <= system.gpus) {
      nodes = 1;
    } else if (o.gpus % system.gpus == 0) {
      nodes = o.gpus / system.gpus;
    } else {
      throw Error(
          fmt::format("{} GPUs is not a multiple of system '{}' ({} GPUs per {}); pass --nodes M with "
                      "--gpus a multiple of M",
                      o.gpus, system.id, system.gpus, system.kind.empty() ? "node" : system.kind));
    }
  }
  if (o.gpus % nodes != 0) {
    throw Error(fmt::format("--gpus {} does not split evenly over --nodes {}", o.gpus, nodes));
  }
  if (o.gpus / nodes > system.gpus) {
    throw Error(fmt::format("system '{}' holds {} GPUs per {}, not {} ({} GPUs over {} node{})", system.id, system.gpus,
                            system.kind.empty() ? "node" : system.kind, o.gpus / nodes, o.gpus, nodes,
                            nodes == 1 ? "" : "s"));
  }
  r.domains = nodes;
  r.gpus_per_domain = o.gpus / nodes;
  r.domain_stride = o.node_stride;
}

CollectiveQuery make_query(const CollectiveCommandRequest& o, const System& system) {
  CollectiveQuery q;
  const auto op = parse_op(o.op);
  if (!op) {
    throw Error(
        fmt::format("unknown --op '{}'; use allreduce, allgather, reducescatter, alltoall, broadcast or sendrecv",
                    o.op));
  }
  q.request.op = *op;
  const auto algorithm = parse_algorithm(o.algorithm);
  if (!algorithm || *algorithm == CollectiveAlgorithm::direct) {
    throw Error(fmt::format("unknown --algorithm '{}'; use auto, ring, tree or nvls", o.algorithm));
  }
  q.request.algorithm = *algorithm;
  if ((q.request.op == CollectiveOp::all_to_all || q.request.op == CollectiveOp::send_recv) &&
      q.request.algorithm != CollectiveAlgorithm::auto_) {
    throw Error(
        fmt::format("{} runs point-to-point; --algorithm {} does not apply (leave it at auto)", o.op, o.algorithm));
  }
  q.dtype = o.dtype;
  q.dtype_bytes = dtype_bytes(o.dtype);
  q.ideal = o.ideal;
  q.request.concurrent = o.concurrent;
  if (o.concurrent < 1) throw Error(fmt::format("--concurrent must be at least 1, got {}", o.concurrent));
  set_group_shape(q.request, o, system);
  if (o.sweep && !o.bytes.empty()) throw Error("--sweep chooses the sizes itself; drop --bytes");
  if (!o.sweep && o.bytes.empty()) throw Error("give --bytes SIZE (e.g. 32MiB), or --sweep");
  q.request.bytes = o.sweep ? 512 : parse_bytes(o.bytes, "--bytes");
  if (!o.sweep && std::fmod(q.request.bytes, q.dtype_bytes) != 0) {
    throw Error(fmt::format("--bytes {} is not a whole number of {} elements ({} bytes each)", o.bytes, o.dtype,
                            q.dtype_bytes));
  }
  return q;
}

// --calibration: the measured curve of this op on this many GPUs, in place of the model, for
// each size asked; stops at the first size the profile cannot answer.
std::vector<CalibratedCollectiveRow> calibrated_rows(const CalibrationProfile& profile, const CollectiveQuery& q,
                                                     const CollectiveTopology& topology,
                                                     const std::vector<double>& sizes) {
  std::vector<CalibratedCollectiveRow> rows;
  const int gpus = q.request.gpus_per_domain * q.request.domains;
  const auto model = [&](double bytes) {
    CollectiveRequest r = q.request;
    r.bytes = bytes;
    const CollectiveEstimate e = estimate_collective(r, topology);
    return e.feasible ? e.time_s : 0.0;
  };
  for (double bytes : sizes) {
    CalibratedCollectiveRow row;
    row.bytes = bytes;
    const auto c = calibrated_collective(profile, q.request.op, gpus, bytes, model, row.why);
    if (!c) {
      rows.push_back(row);
      return rows;
    }
    row.applied = true;
    row.time_s = c->time_s;
    row.busbw_bytes_per_s = c->busbw_bytes_per_s;
    row.model_time_s = model(bytes);
    row.how = c->how;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

std::vector<double> collective_sweep_sizes() {
  std::vector<double> sizes;
  for (double s = 512; s <= 16 * kGiB; s *= 2) sizes.push_back(s);
  return sizes;
}

CollectiveAnswer answer_collective(const Catalog& catalog, const CollectiveCommandRequest& request) {
  if (request.system.empty() && request.fabric.empty()) {
    throw Error("give --system NAME (see 'gpuplan systems'), or --fabric NAME");
  }
  ClusterQuery cluster_query;
  cluster_query.system = request.system;
  cluster_query.fabric = request.fabric;
  const ClusterChoice cluster = choose_cluster(catalog, cluster_query);
  CollectiveAnswer a;
  a.query = make_query(request, *cluster.system);
  a.sweep = request.sweep;
  const CollectiveParams ideal = ideal_collective_params();
  const CollectiveParams& params = request.ideal ? ideal : default_collective_params(catalog);
  a.topology = make_collective_topology(catalog, *cluster.system, cluster.fabric, params);
  check_collective_request(a.query.request, a.topology);
  if (request.sweep) {
    CollectiveRequest r = a.query.request;
    for (double bytes : collective_sweep_sizes()) {
      r.bytes = bytes;
      a.sweep_rows.push_back({bytes, estimate_collective(r, a.topology)});
    }
  } else {
    const CollectiveRequest& r = a.query.request;
    a.estimate = estimate_collective(r, a.topology);
    a.candidates = collective_candidates(r, a.topology);
    a.why = collective_why(a.query, a.topology, a.estimate, a.candidates);
    a.busbw_factor = busbw_factor(r.op, r.gpus());
  }
  if (!request.calibration.empty()) {
    a.calibration = request.calibration;
    const CalibrationProfile profile = load_collective_calibration(request.calibration);
    const std::vector<double> sizes =
        request.sweep ? collective_sweep_sizes() : std::vector<double>{a.query.request.bytes};
    a.calibrated = calibrated_rows(profile, a.query, a.topology, sizes);
  }
  return a;
}

}  // namespace gpuplan
