// Names of collective operations, algorithms and protocols as users type them, and the checks
// that turn a bad request into a message that says what to change.
#include <fmt/format.h>

#include "core/error.h"
#include "core/strings.h"
#include "cost/collective_levels.h"

namespace gpuplan {
namespace {

// "All-Reduce", "all_reduce" and "allreduce" are the same name.
std::string squash(std::string_view text) {
  std::string out;
  for (char c : to_lower(text)) {
    if (c != '-' && c != '_' && c != ' ') out.push_back(c);
  }
  return out;
}

}  // namespace

std::string_view op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce:
      return "allreduce";
    case CollectiveOp::all_gather:
      return "allgather";
    case CollectiveOp::reduce_scatter:
      return "reducescatter";
    case CollectiveOp::all_to_all:
      return "alltoall";
    case CollectiveOp::broadcast:
      return "broadcast";
    case CollectiveOp::send_recv:
      return "sendrecv";
  }
  return "?";
}

std::string_view algorithm_name(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::auto_:
      return "auto";
    case CollectiveAlgorithm::ring:
      return "ring";
    case CollectiveAlgorithm::tree:
      return "tree";
    case CollectiveAlgorithm::nvls:
      return "nvls";
    case CollectiveAlgorithm::direct:
      return "direct";
  }
  return "?";
}

std::string_view protocol_name(Protocol protocol) {
  switch (protocol) {
    case Protocol::ll:
      return "LL";
    case Protocol::ll128:
      return "LL128";
    case Protocol::simple:
      return "Simple";
  }
  return "?";
}

std::optional<CollectiveOp> parse_op(std::string_view text) {
  const std::string s = squash(text);
  for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                          CollectiveOp::all_to_all, CollectiveOp::broadcast, CollectiveOp::send_recv}) {
    if (s == op_name(op)) return op;
  }
  return std::nullopt;
}

std::optional<CollectiveAlgorithm> parse_algorithm(std::string_view text) {
  const std::string s = squash(text);
  for (CollectiveAlgorithm a : {CollectiveAlgorithm::auto_, CollectiveAlgorithm::ring, CollectiveAlgorithm::tree,
                                CollectiveAlgorithm::nvls, CollectiveAlgorithm::direct}) {
    if (s == algorithm_name(a)) return a;
  }
  return std::nullopt;
}

void check_collective_request(const CollectiveRequest& r, const CollectiveTopology& t) {
  const std::string where = t.fabric_id.empty() ? fmt::format("system '{}'", t.system_id)
                                                : fmt::format("system '{}' on fabric '{}'", t.system_id, t.fabric_id);
  if (!(r.bytes > 0)) throw Error(fmt::format("the message size must be positive, got {} bytes", r.bytes));
  if (r.gpus_per_domain < 1 || r.domains < 1) throw Error("the GPU count must be at least 1");
  if (r.concurrent < 1) throw Error("the number of concurrent collectives must be at least 1");
  if (r.gpus_per_domain > t.domain_gpus) {
    throw Error(fmt::format("{} has {} GPUs per scale-up domain, not {}; use --nodes to span several", where,
                            t.domain_gpus, r.gpus_per_domain));
  }
  if (r.domains > 1 && t.level_count < 2) {
    throw Error(fmt::format("{} has no scale-out NICs, so a group cannot span {} of them", where, r.domains));
  }
  if (t.max_domains > 0 && (static_cast<long long>(r.domains) - 1) * r.domain_stride + 1 > t.max_domains) {
    throw Error(fmt::format("{} holds {} domains ({} GPUs); {} domains{} do not fit", where, t.max_domains,
                            static_cast<long long>(t.max_domains) * t.domain_gpus, r.domains,
                            r.domain_stride > 1 ? fmt::format(" {} apart", r.domain_stride) : std::string()));
  }
  if (r.op == CollectiveOp::send_recv && r.gpus() < 2) {
    throw Error(fmt::format(
        "sendrecv needs at least 2 GPUs (each sends to the next and receives from the previous), got {}; use "
        "--gpus 2 or more",
        r.gpus()));
  }
  const CollectiveEstimate e = estimate_collective(r, t);
  if (!e.feasible) {
    std::string fix;
    if (r.algorithm == CollectiveAlgorithm::nvls && !t.nvls())
      fix = "; use --algorithm ring (or auto)";
    else if (r.algorithm != CollectiveAlgorithm::auto_)
      fix = "; use --algorithm auto";
    throw Error(fmt::format("{} on {}: {}{}", algorithm_name(r.algorithm), where, e.reason, fix));
  }
}

}  // namespace gpuplan
