// gpuplan collective --op OP --bytes SIZE --gpus N --system NAME [--nodes M] [--fabric F] ...
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "core/units.h"
#include "calibration/profile.h"
#include "cost/collective.h"
#include "calibration/collective_calibration.h"
#include "report/collective_report.h"

namespace gpuplan {
namespace {

struct CollectiveOpts {
  std::string op;
  std::string bytes;
  int gpus = 0;
  std::string system;
  int nodes = 0;
  int node_stride = 1;
  std::string fabric;
  std::string algorithm = "auto";
  std::string dtype = "bf16";
  int concurrent = 1;
  bool ideal = false;
  bool sweep = false;
  bool json = false;
  std::string calibration;
};

double dtype_bytes(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp32") return 4;
  throw Error(fmt::format("unknown --dtype '{}'; use bf16, fp16 or fp32", dtype));
}

// --gpus N [--nodes M] on a system of G GPUs per domain -> M domains x N/M GPUs.
void set_group_shape(CollectiveRequest& r, const CollectiveOpts& o, const System& system) {
  if (o.gpus < 1) throw Error(fmt::format("--gpus must be at least 1, got {}", o.gpus));
  if (o.nodes < 0) throw Error(fmt::format("--nodes must be at least 1, got {}", o.nodes));
  if (o.node_stride < 1) throw Error(fmt::format("--node-stride must be at least 1, got {}", o.node_stride));
  int nodes = o.nodes;
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

// --calibration: the measured curve of this op on this many GPUs, in place of the model, for
// each size asked (one, or the sweep's); JSON rows and text lines.
nlohmann::ordered_json calibrated_rows(const CalibrationProfile& profile, const CollectiveQuery& q,
                                       const CollectiveTopology& topology, const std::vector<double>& sizes,
                                       std::string& text) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  const int gpus = q.request.gpus_per_domain * q.request.domains;
  const auto model = [&](double bytes) {
    CollectiveRequest r = q.request;
    r.bytes = bytes;
    const CollectiveEstimate e = estimate_collective(r, topology);
    return e.feasible ? e.time_s : 0.0;
  };
  for (double bytes : sizes) {
    std::string why;
    const auto c = calibrated_collective(profile, q.request.op, gpus, bytes, model, why);
    if (!c) {
      text += fmt::format("calibration: not applied ({})\n", why);
      rows.push_back({{"bytes", bytes}, {"applied", false}, {"why", why}});
      return rows;
    }
    text += fmt::format("calibrated {:>10}: {:.1f} us, busbw {:.1f} GB/s (model {:.1f} us; {})\n",
                        format_bytes(bytes, true), c->time_s * 1e6, c->busbw_bytes_per_s / 1e9, model(bytes) * 1e6,
                        c->how);
    rows.push_back({{"bytes", bytes},
                    {"applied", true},
                    {"time_s", c->time_s},
                    {"busbw_bytes_per_s", c->busbw_bytes_per_s},
                    {"model_time_s", model(bytes)},
                    {"how", c->how}});
  }
  return rows;
}

}  // namespace

void setup_collective(CliCommand& cmd, CliContext& ctx) {
  auto o = std::make_shared<CollectiveOpts>();
  cmd.add_option("--op", o->op, "allreduce, allgather, reducescatter, alltoall, broadcast or sendrecv")->required();
  cmd.add_option("--bytes", o->bytes, "Message size (nccl-tests 'size'), e.g. 32MiB, 1GB, 4096; not with --sweep");
  cmd.add_option("--gpus", o->gpus, "GPUs in the group")->required();
  cmd.add_option("--system", o->system, "Node or rack id (see 'gpuplan systems'); defaults to the fabric's");
  cmd.add_option("--nodes", o->nodes, "Scale-up domains the group spans (default: as few as hold --gpus)");
  cmd.add_option("--node-stride", o->node_stride,
                 "Consecutive nodes of the group are this many nodes apart (a data-parallel group under model "
                 "parallelism); default 1");
  cmd.add_option("--fabric", o->fabric, "Fabric id above the nodes (see 'gpuplan systems'); default: NICs only");
  cmd.add_option("--algorithm", o->algorithm, "auto (cheapest, as NCCL picks), ring, tree or nvls");
  cmd.add_option("--dtype", o->dtype, "bf16, fp16 or fp32 (element size)");
  cmd.add_option("--concurrent", o->concurrent, "Collectives sharing the same links at once (each gets 1/K)");
  cmd.add_flag("--ideal", o->ideal, "Line rate and no latency: the seed documents' idealised bounds");
  cmd.add_flag("--sweep", o->sweep, "Table over 512 B ... 16 GiB, doubling, like nccl-tests");
  cmd.add_option("--calibration", o->calibration,
                 "Profile from gpuplan-bench measured on this system: its collective curve replaces the model");
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, &ctx] {
    const Catalog& catalog = ctx.catalog();
    const Fabric* fabric = o->fabric.empty() ? nullptr : &catalog.fabric(o->fabric);
    if (o->system.empty() && !fabric) throw Error("give --system NAME (see 'gpuplan systems'), or --fabric NAME");
    const System& system = o->system.empty() ? catalog.system(fabric->system) : catalog.system(o->system);

    CollectiveQuery q;
    const auto op = parse_op(o->op);
    if (!op) {
      throw Error(
          fmt::format("unknown --op '{}'; use allreduce, allgather, reducescatter, alltoall, broadcast or "
                      "sendrecv",
                      o->op));
    }
    q.request.op = *op;
    const auto algorithm = parse_algorithm(o->algorithm);
    if (!algorithm || *algorithm == CollectiveAlgorithm::direct) {
      throw Error(fmt::format("unknown --algorithm '{}'; use auto, ring, tree or nvls", o->algorithm));
    }
    q.request.algorithm = *algorithm;
    if ((q.request.op == CollectiveOp::all_to_all || q.request.op == CollectiveOp::send_recv) &&
        q.request.algorithm != CollectiveAlgorithm::auto_) {
      throw Error(
          fmt::format("{} runs point-to-point; --algorithm {} does not apply (leave it at auto)", o->op, o->algorithm));
    }
    q.dtype = o->dtype;
    q.dtype_bytes = dtype_bytes(o->dtype);
    q.ideal = o->ideal;
    q.request.concurrent = o->concurrent;
    if (o->concurrent < 1) throw Error(fmt::format("--concurrent must be at least 1, got {}", o->concurrent));
    set_group_shape(q.request, *o, system);

    if (o->sweep && !o->bytes.empty()) throw Error("--sweep chooses the sizes itself; drop --bytes");
    if (!o->sweep && o->bytes.empty()) throw Error("give --bytes SIZE (e.g. 32MiB), or --sweep");
    q.request.bytes = o->sweep ? 512 : parse_bytes(o->bytes, "--bytes");
    if (!o->sweep && std::fmod(q.request.bytes, q.dtype_bytes) != 0) {
      throw Error(fmt::format("--bytes {} is not a whole number of {} elements ({} bytes each)", o->bytes, o->dtype,
                              q.dtype_bytes));
    }

    const CollectiveParams ideal = ideal_collective_params();
    const CollectiveParams& params = o->ideal ? ideal : default_collective_params(catalog);
    const CollectiveTopology topology = make_collective_topology(catalog, system, fabric, params);
    check_collective_request(q.request, topology);

    std::optional<CalibrationProfile> profile;
    if (!o->calibration.empty()) profile = load_calibration(o->calibration);
    std::vector<double> sizes;
    if (o->sweep) {
      for (double b = 512; b <= 16.0 * 1024 * 1024 * 1024; b *= 2) sizes.push_back(b);
    } else {
      sizes.push_back(q.request.bytes);
    }
    std::string cal_text;
    nlohmann::ordered_json cal_rows;
    if (profile) cal_rows = calibrated_rows(*profile, q, topology, sizes, cal_text);
    if (o->json) {
      nlohmann::ordered_json j = o->sweep ? collective_sweep_json(q, topology) : collective_json(q, topology);
      if (profile) j["calibration"] = {{"profile", o->calibration}, {"rows", cal_rows}};
      ctx.print_json(j);
    } else {
      ctx.out << (o->sweep ? collective_sweep_text(q, topology) : collective_text(q, topology)) << cal_text;
    }
  });
}

}  // namespace gpuplan
