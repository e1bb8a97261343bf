// Latency + bandwidth per algorithm and protocol, and the choice among them: NCCL's tuner
// (src/graph/tuning.cc) costs every (algorithm, protocol) pair as
//   time = base latency + steps x per-hop latency + bytes / bandwidth
// and runs the cheapest; one such line does not fit a measured curve, the cheapest of the LL,
// LL128 and Simple lines does (docs/model/collectives.md). The bandwidth term comes from the
// per-level bound in cost/collective_levels.h.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <type_traits>

#include "cost/collective_levels.h"
#include "cost/collective_net_message.h"
#include "cost/collective_nvls_tree.h"
#include "cost/collective_p2p_channels.h"
#include "cost/collective_simple_fill.h"

namespace gpuplan {
namespace {

using collective_detail::GroupShape;

// The smallest s with 2^s >= value (0 for value <= 1), without a loop.
int ceil_log2(int value) { return value <= 1 ? 0 : std::bit_width(static_cast<unsigned>(value - 1)); }

bool is_reduction_ring_op(CollectiveOp op) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter ||
         op == CollectiveOp::broadcast;
}

// Which algorithms may run `op` on this group, whatever the protocol: NCCL runs Tree and NVLS
// for AllReduce only, and AllToAll/SendRecv point-to-point.
const char* algorithm_unavailable(CollectiveOp op, CollectiveAlgorithm algorithm, const GroupShape& shape,
                                  const CollectiveTopology& topology, double bytes) {
  if (shape.domains > 1 && algorithm != CollectiveAlgorithm::auto_ &&
      !topology.net_algorithms[static_cast<int>(algorithm)]) {
    return "the scale-out transport's profile does not run this algorithm across domains (NCCL_ALGO / "
           "NCCL_NVLS_ENABLE as its cloud sets them)";
  }
  switch (algorithm) {
    case CollectiveAlgorithm::ring:
      return is_reduction_ring_op(op) ? nullptr : "ring does not run AllToAll or SendRecv";
    case CollectiveAlgorithm::tree:
      return op == CollectiveOp::all_reduce ? nullptr : "tree runs AllReduce only";
    case CollectiveAlgorithm::nvls:
      // In-network reduction: NVLS in the domain and/or SHARP in the fabric.
      if (op != CollectiveOp::all_reduce) return "in-switch reduction (NVLS/SHARP) speeds up AllReduce only";
      if (!(topology.nvls() && shape.per_domain > 1) && !(topology.sharp() && shape.domains > 1)) {
        return topology.nvls() ? "NVLS needs at least 2 GPUs of the group in a domain"
                               : "no switch on the group's path can reduce (no NVLS in the domain, no SHARP in "
                                 "the fabric)";
      }
      return nullptr;
    case CollectiveAlgorithm::direct:
      // SendRecv: every rank sends to the next and receives from the previous (nccl-tests
      // sendrecv_perf; two ranks send to each other), at least 2 GPUs.
      if (op == CollectiveOp::send_recv) return shape.ranks >= 2 ? nullptr : "SendRecv needs at least 2 GPUs";
      if (op == CollectiveOp::all_reduce && topology.one_shot_allreduce) {
        if (shape.domains > 1) return "the one-shot AllReduce runs inside one mesh domain only";
        return bytes <= topology.one_shot_max_bytes ? nullptr
                                                    : "the library runs the one-shot AllReduce only for small messages "
                                                      "(RCCL_MSCCLPP_THRESHOLD)";
      }
      return op == CollectiveOp::all_to_all ? nullptr : "direct runs AllToAll and SendRecv only";
    case CollectiveAlgorithm::auto_:
      return "auto is not an algorithm";
  }
  return "unknown algorithm";
}

// The protocols an available algorithm may use: NVLS (and SHARP) runs Simple only, and a group
// that spans domains runs only the protocols its scale-out transport carries. NCCL_PROTO is
// per communicator, not per hop: where a net plugin forces Simple (AWS EFA on p4d, GCP
// TCPX/TCPXO), LL and LL128 leave the whole collective, the NVLink part included.
const char* protocol_unavailable(CollectiveAlgorithm algorithm, Protocol protocol, const GroupShape& shape,
                                 const CollectiveTopology& topology) {
  if (algorithm == CollectiveAlgorithm::nvls && protocol != Protocol::simple) {
    return "in-network reduction runs the Simple protocol only";
  }
  // NCCL enables LL128 only where the paths inside a node are NVLink (src/graph/tuning.cc:
  // typeIntra <= PATH_NVB; "other cases are not tested and may cause silent data corruption"):
  // GPUs that talk through PCIe switches or the host run LL and Simple.
  if (protocol == Protocol::ll128 && topology.scaleup == ScaleupKind::pcie) {
    return "NCCL runs LL128 only over NVLink paths inside a node (PCIe GPUs run LL and Simple)";
  }
  if (shape.domains > 1 && !topology.net_protocols[static_cast<int>(protocol)]) {
    return protocol == Protocol::ll ? "the scale-out transport does not carry LL (its net plugin sets NCCL_PROTO)"
                                    : "the scale-out transport does not carry LL128 (its net plugin sets NCCL_PROTO, "
                                      "or NCCL's LL128 gate refuses the GPU-to-NIC path)";
  }
  return nullptr;
}

// NCCL's point-to-point path (AllToAll and SendRecv are grouped ncclSend/ncclRecv) picks its own
// protocol per peer and never LL128: LL while the bytes to one peer are at most
// NCCL_P2P_LL_THRESHOLD (16 KiB), Simple above (src/enqueue.cc addP2pToPlan at v2.18.3-1,
// v2.21.5-1 and 5067397c; v2.25 allows p2pnChannelsPerPeer x 16 KiB).
constexpr double kP2pLlMaxBytesPerPeer = 16384;

const char* p2p_protocol_unavailable(CollectiveOp op, CollectiveAlgorithm algorithm, Protocol protocol,
                                     const GroupShape& shape, double bytes) {
  if (algorithm != CollectiveAlgorithm::direct) return nullptr;
  if (op != CollectiveOp::all_to_all && op != CollectiveOp::send_recv) return nullptr;
  if (protocol == Protocol::ll128) {
    return "NCCL's point-to-point path (AllToAll, SendRecv) runs LL or Simple, never LL128";
  }
  const double per_peer = op == CollectiveOp::all_to_all ? bytes / std::max(1, shape.ranks) : bytes;
  if (protocol == Protocol::ll && per_peer > kP2pLlMaxBytesPerPeer) {
    return "NCCL's point-to-point path runs LL only up to NCCL_P2P_LL_THRESHOLD (16 KiB) per peer";
  }
  // A send to a peer across the network has no LL buffer: the net transport's point-to-point
  // connections share one Simple buffer and get LL buffers only with NCCL_ALLOC_P2P_NET_LL_BUFFERS=1
  // (default 0), and the protocol is LL only where the connection has one (NVIDIA/nccl 5067397c
  // src/transport/net.cc sendProxySetup/recvProxySetup "if (proxyState->allocP2pNetLLBuffers)",
  // src/enqueue.cc "protoLL[dir] &= conn->conn.buffs[NCCL_PROTO_LL] != nullptr"; RCCL 2.21.5
  // (ROCm/rccl 0cbce2a7) src/transport/net.cc:765 and src/enqueue.cc:590 the same). The network
  // peers' sends then set the time of a group that leaves the domain.
  if (protocol == Protocol::ll && shape.domains > 1) {
    return "a point-to-point send across the network runs Simple: the net transport allocates no LL buffers for it "
           "(NCCL_ALLOC_P2P_NET_LL_BUFFERS=0)";
  }
  return nullptr;
}

// RCCL picks the protocol of a multi-node AllReduce / AllGather / ReduceScatter by size, not by
// its cost model (rcclUpdateCollectiveProtocol, ROCm/rccl src/misc/rccl_wrap.cc as stored on
// 2026-11-28; added after RCCL 2.21.5, which has no llProtoRanges): Simple, LL where the size per
// rank lies in the tuning model's LL range, LL128 where it lies in the LL128 range (the later test
// wins) and LL128 is enabled; an AllReduce beyond two nodes stretches the LL128 maximum by 3.8
// ("Tree has special behavior at 2 nodes"). The size per rank is the whole buffer for AllReduce,
// bytes / ranks for AllGather and ReduceScatter (rcclGetSizePerRank). The algorithm stays the
// tuner's. Ranges: the scale-up link's [[link.net_protocol_range]] for the GPU's architecture.

Protocol library_net_protocol(CollectiveOp op, const GroupShape& shape, const CollectiveTopology& t, double bytes,
                              bool& applies) {
  applies = false;
  if (!t.net_protocol_ranges || shape.domains <= 1) return Protocol::simple;
  // AllReduce only (row 2 of RCCL's RcclTunableColls order). AllGather and ReduceScatter have rows
  // of their own, which differ on gfx942; applying them would break same_collective_time's
  // contract (cost/collective.h: the two cost alike on any topology, the training evaluator's
  // cache rests on it), which needs the topology to tell them apart: not done (docs/model).
  if (op != CollectiveOp::all_reduce) return Protocol::simple;
  const int row = 2;
  applies = true;
  const double per_rank = op == CollectiveOp::all_reduce ? bytes : bytes / std::max(1, shape.ranks);
  Protocol chosen = Protocol::simple;
  if (per_rank > t.net_ll_min_bytes[row] && per_rank <= t.net_ll_max_bytes[row]) chosen = Protocol::ll;
  double ll128_max = t.net_ll128_max_bytes[row];
  if (op == CollectiveOp::all_reduce && shape.domains > 2) ll128_max *= CollectiveTopology::kNetLl128AllReduceStretch;
  const bool ll128_enabled = t.net_protocols[static_cast<int>(Protocol::ll128)] && t.scaleup != ScaleupKind::pcie;
  if (ll128_enabled && per_rank > t.net_ll128_min_bytes[row] && per_rank <= ll128_max) chosen = Protocol::ll128;
  return chosen;
}

[[gnu::noinline]] const char* library_net_protocol_rule(CollectiveOp op, CollectiveAlgorithm algorithm,
                                                        Protocol protocol, const GroupShape& shape,
                                                        const CollectiveTopology& t, double bytes) {
  if (algorithm == CollectiveAlgorithm::direct || algorithm == CollectiveAlgorithm::nvls) return nullptr;
  bool applies = false;
  const Protocol chosen = library_net_protocol(op, shape, t, bytes, applies);
  if (!applies || protocol == chosen) return nullptr;
  switch (chosen) {
    case Protocol::ll:
      return "across nodes RCCL runs LL at this size (rcclUpdateCollectiveProtocol: inside its tuning model's LL "
             "range for the GPU's architecture)";
    case Protocol::ll128:
      return "across nodes RCCL runs LL128 at this size (rcclUpdateCollectiveProtocol: inside its tuning model's "
             "LL128 range for the GPU's architecture)";
    case Protocol::simple:
      return "across nodes RCCL runs Simple at this size (rcclUpdateCollectiveProtocol: outside its tuning model's "
             "LL and LL128 ranges for the GPU's architecture)";
  }
  return nullptr;
}

// The size rule's check on every candidate line: inline where no rule applies (the common case),
// the rule itself out of line so the unrolled line costing stays within the inliner's budget.
[[gnu::always_inline]] inline const char* library_net_protocol_unavailable(CollectiveOp op,
                                                                           CollectiveAlgorithm algorithm,
                                                                           Protocol protocol, const GroupShape& shape,
                                                                           const CollectiveTopology& t, double bytes) {
  if (!t.net_protocol_ranges || shape.domains <= 1) return nullptr;
  return library_net_protocol_rule(op, algorithm, protocol, shape, t, bytes);
}

// Which (algorithm, protocol) pairs may run `op` on this group: the algorithm's reason first.
// A protocol the caller forces (estimate_collective_with, as NCCL_PROTO does) escapes the
// library's size rule: RCCL honours NCCL_PROTO and skips rcclUpdateCollectiveProtocol then.
const char* unavailable(CollectiveOp op, CollectiveAlgorithm algorithm, Protocol protocol, const GroupShape& shape,
                        const CollectiveTopology& topology, double bytes) {
  if (const char* why = algorithm_unavailable(op, algorithm, shape, topology, bytes)) return why;
  if (const char* why = p2p_protocol_unavailable(op, algorithm, protocol, shape, bytes)) return why;
  return protocol_unavailable(algorithm, protocol, shape, topology);
}

// Sequential steps of one line inside the domain and across domains, with NCCL's counts
// (tuning.cc): a ring AllReduce takes 2(n-1) steps, 2M of them across nodes; AllGather,
// ReduceScatter and Broadcast n-1, M-1 across; a tree 2(g-1) in the chain and 2 log2(M) across.
struct Steps {
  int intra = 0;
  int inter = 0;
  bool one_shot = false;  // direct AllReduce on a mesh: a collective kernel, the library's base
};

[[gnu::always_inline]] inline Steps steps(CollectiveOp op, CollectiveAlgorithm algorithm, const GroupShape& shape,
                                          const CollectiveTopology& t) {
  const int n = shape.ranks;
  const int g = shape.per_domain;
  const int m = shape.domains;
  Steps s;
  switch (algorithm) {
    case CollectiveAlgorithm::ring: {
      const int total = op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1;
      int inter = op == CollectiveOp::all_reduce ? (m > 1 ? 2 * m : 0) : m - 1;
      if (g == 1) inter = total;
      s.inter = std::min(inter, total);
      s.intra = total - s.inter;
      break;
    }
    case CollectiveAlgorithm::tree:
      s.intra = 2 * (g - 1);
      s.inter = 2 * ceil_log2(m);
      break;
    case CollectiveAlgorithm::nvls:
      // NVLS: one switch round trip; without it (CollNet) a ring reduce-scatter + all-gather.
      // Across domains SHARP's up-and-down, else NVLS_TREE's tree: 2 log2(M) like Tree's.
      s.intra = g > 1 ? (t.nvls() ? 1 : 2 * (g - 1)) : 0;
      s.inter = m > 1 ? (t.sharp() ? 2 : 2 * ceil_log2(m)) : 0;
      break;
    case CollectiveAlgorithm::direct:
      s.intra = g > 1 ? 1 : 0;
      s.inter = m > 1 ? 1 : 0;
      s.one_shot = op == CollectiveOp::all_reduce;
      break;
    case CollectiveAlgorithm::auto_:
      break;
  }
  return s;
}

// The library's terms of one line's fixed part (NCCL's tuner: base + steps x per-hop latency).
[[gnu::always_inline]] inline double latency_in_library(CollectiveAlgorithm algorithm, Protocol protocol,
                                                        const GroupShape& shape, const Steps& s,
                                                        const CollectiveTopology& topology, const CollectiveLevel& in,
                                                        const CollectiveLevel& net, double net_factor) {
  const int p = static_cast<int>(protocol);
  switch (algorithm) {
    case CollectiveAlgorithm::ring:
      return topology.ring_base_s[p] + s.intra * in.ring_hop_s[p] + s.inter * net.ring_hop_s[p] * net_factor;
    case CollectiveAlgorithm::tree:
      return topology.tree_base_s[p] + s.intra * in.tree_hop_s[p] + s.inter * net.tree_hop_s[p];
    case CollectiveAlgorithm::nvls: {
      // NCCL's tuner: NVLS costs base + 2 (ranks per node - 1) x intraLat, so its fixed cost
      // grows with the GPUs of the group in the domain (8-GPU node vs 72-GPU NVL72 rack).
      const double g = shape.per_domain;
      const double inside = topology.nvls()
                                ? (g > 1 ? topology.nvls_latency_s + 2 * (g - 1) * topology.nvls_hop_s : 0.0)
                                : topology.ring_base_s[p] + s.intra * in.ring_hop_s[p];
      return inside + s.inter * net.tree_hop_s[p];
    }
    case CollectiveAlgorithm::direct:
      // A one-shot AllReduce is one collective kernel (the library's base, one hop to every
      // peer at once); AllToAll and SendRecv are grouped point-to-point calls.
      return (s.one_shot ? topology.ring_base_s[p] : topology.p2p_latency_s) + s.intra * in.ring_hop_s[p] +
             s.inter * net.ring_hop_s[p];
    case CollectiveAlgorithm::auto_:
      break;
  }
  return 0;
}

// The fixed part of one (algorithm, protocol) line: base + steps x per-hop latency.
[[gnu::always_inline]] inline double latency(CollectiveAlgorithm algorithm, Protocol protocol, const GroupShape& shape,
                                             const Steps& s, const CollectiveTopology& topology) {
  const CollectiveLevel& in = topology.levels[0];
  const CollectiveLevel& net = topology.levels[topology.level_count > 1 ? 1 : 0];
  const double net_factor = protocol == Protocol::simple && shape.domains > 1 ? topology.net_ring_simple_factor : 1.0;
  // The transport's own fixed cost, once per collective that leaves the domain.
  const double net_base = shape.domains > 1 ? topology.net_base_s : 0.0;
  return net_base + latency_in_library(algorithm, protocol, shape, s, topology, in, net, net_factor);
}

}  // namespace

double ll_channel_share(double bytes, int ranks, int channels, double fill_bytes_per_rank) {
  if (channels <= 0 || !(fill_bytes_per_rank > 0) || ranks < 1) return 1.0;
  const double running = bytes / (fill_bytes_per_rank * ranks);
  return std::clamp(running, 1.0, static_cast<double>(channels)) / channels;
}

double busbw_factor(CollectiveOp op, int gpus) {
  const double n = gpus;
  if (gpus <= 1) return 0;
  switch (op) {
    case CollectiveOp::all_reduce:
      return 2 * (n - 1) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all:
      return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::send_recv:
      return 1;
  }
  return 1;
}

namespace {

// The checks every line shares; false (and the reason in `e`) when the request cannot run.
// Inline in the choice (out of line it was a call and a clone per collective estimate).
[[gnu::always_inline]] inline const char* group_problem(const CollectiveRequest& request,
                                                        const CollectiveTopology& topology, GroupShape& shape) {
  if (!(request.bytes > 0) || !std::isfinite(request.bytes)) return "bytes must be positive";
  if (request.concurrent < 1) return "concurrent must be at least 1";
  if (!collective_detail::group_shape(request, topology, shape)) return "the group does not fit this system or fabric";
  return nullptr;
}

bool group_ok(const CollectiveRequest& request, const CollectiveTopology& topology, GroupShape& shape,
              CollectiveEstimate& e) {
  if (const char* why = group_problem(request, topology, shape)) {
    e.reason = why;
    e.feasible = false;
    return false;
  }
  return true;
}

// The share of a line's full rate it gets: 1 / concurrent collectives on the same links, and
// on a ring LL line NCCL's small-message channel narrowing. It scales both the links' rate and
// NCCL's bus-bandwidth ceilings (line_level_bw), which are for the full channel set.
[[gnu::always_inline]] inline double line_share(const CollectiveRequest& request, const CollectiveTopology& topology,
                                                const GroupShape& shape, CollectiveAlgorithm algorithm,
                                                Protocol protocol) {
  double share = request.concurrent == 1 ? 1.0 : 1.0 / request.concurrent;
  if (protocol == Protocol::ll && algorithm == CollectiveAlgorithm::ring && topology.ll_channels > 0) {
    share *=
        ll_channel_share(request.bytes, shape.ranks, topology.ll_channels, topology.ll_channel_fill_bytes_per_rank);
  }
  return share;
}

// The share of the links' rate a line runs at: the protocol's fraction, shared by concurrent
// collectives; small ring LL messages run on fewer channels (NCCL's narrowing,
// docs/model/collectives.md). line_time() and chosen_line() both take it from here.
// `share` is line_share()'s value for the line, computed once by the caller (line_level_bw
// scales the bus-bandwidth ceilings by it too).
[[gnu::always_inline]] inline double line_bw_scale(const CollectiveTopology& topology, CollectiveAlgorithm algorithm,
                                                   Protocol protocol, double share) {
  const double fraction = algorithm == CollectiveAlgorithm::tree
                              ? topology.tree_protocol_bw_fraction[static_cast<int>(protocol)]
                              : topology.protocol_bw_fraction[static_cast<int>(protocol)];
  return fraction * share;
}

// What every protocol's line of one algorithm shares: its traffic, its steps and each level's
// bandwidth before the protocol and sharing factors (level_bandwidth), computed once per
// algorithm by estimate_collective rather than once per (algorithm, protocol) line.
struct AlgorithmLines {
  collective_detail::LevelTraffic traffic;
  Steps steps;
  std::array<double, kMaxCollectiveLevels> level_bw{};  // set where traffic.bytes > 0
  // How many shards share a network step while Simple's pipeline fills: NVLS_TREE beyond two
  // domains (no SHARP) sends c = 2 x 2(N-1)/N shards through each head NIC (an interior node
  // of the double binary tree takes two children's chunks and forwards one), so a chunk
  // crosses a tree step at 1/c of the NIC's rate, as the transfer does. 1 otherwise.
  double net_fill_share = 1.0;
  // NVLS_TREE across domains: NCCL's network chunk for this buffer and the rate a head NIC's
  // proxy posts it at, which caps every network level's rate (cost/collective_nvls_tree.h); 0
  // otherwise.
  double nvls_tree_chunk_bytes = 0;
  double net_step_cap_bytes_per_s = 0;
};

// NVLS_TREE's network chunk and the rate its head NICs post it at, capping the network levels
// (cost/collective_nvls_tree.h). Out of line: only NVLS lines across domains pay for it, and
// inlined into every unrolled line it pushes the line costing past the inliner's budget.
[[gnu::noinline]] void cap_nvls_tree_levels(AlgorithmLines& a, const CollectiveRequest& request,
                                            const CollectiveTopology& topology, const GroupShape& shape) {
  const double nics = shape.per_domain * topology.nics_per_gpu;
  int heads = std::max(1, static_cast<int>(std::floor(nics)));
  if (topology.nvls_tree_heads > 0) heads = std::min(heads, topology.nvls_tree_heads);
  a.nvls_tree_chunk_bytes =
      nvls_tree_chunk_bytes(request.bytes, shape.domains, topology.nvls_channels, heads, topology.nvls_chunk_bytes,
                            topology.nvls_tree_max_chunk_bytes, topology.nvls_tree_max_chunk_min_domains);
  a.net_step_cap_bytes_per_s = net_step_rate_bytes_per_s(a.nvls_tree_chunk_bytes, topology.net_step_overhead_s);
  if (a.net_step_cap_bytes_per_s > 0) {
    for (int i = 1; i <= shape.top; ++i) {
      if (a.traffic.bytes[i] > 0) a.level_bw[i] = std::min(a.level_bw[i], a.net_step_cap_bytes_per_s);
    }
  }
}

[[gnu::always_inline]] inline AlgorithmLines algorithm_lines(const CollectiveRequest& request,
                                                             const CollectiveTopology& topology,
                                                             const GroupShape& shape, CollectiveAlgorithm algorithm) {
  AlgorithmLines a{collective_detail::level_traffic(request.op, algorithm, request.bytes, shape, topology),
                   steps(request.op, algorithm, shape, topology)};
  for (int i = 0; i <= shape.top; ++i) {
    if (a.traffic.bytes[i] > 0) {
      a.level_bw[i] = collective_detail::level_bandwidth(topology, shape, i, a.traffic.in_network[i]);
    }
  }
  if (algorithm == CollectiveAlgorithm::nvls) {
    for (int i = 1; i <= shape.top; ++i) {
      const double n = shape.children[i];
      if (topology.levels[i].reduction_bw_bytes_per_s > 0 || n <= 2) continue;
      a.net_fill_share = std::max(a.net_fill_share, 2.0 * 2.0 * (n - 1) / n);
    }
    // NVLS_TREE (NVLS inside, a tree of heads across, no SHARP): each head NIC moves one chunk
    // per Simple net step's cost, with NCCL's chunk for this buffer and domain count. The heads
    // (for the chunk rule's channels x heads) are the NICs that carry the domain's shards, at
    // most nvls_tree_heads (NCCL_MAX_NVLS_ARITY), as level_traffic crowds them.
    if (shape.domains > 1 && topology.nvls() && !topology.sharp()) cap_nvls_tree_levels(a, request, topology, shape);
  }
  return a;
}

// The rate level i runs at in one line: its bandwidth x the protocol and sharing scale
// (the point-to-point fraction of AllToAll and SendRecv on the scale-up level). A Tree AllReduce's chain inside the
// domain runs no faster than NCCL's per-channel Tree ceiling x its channels (NCCL tuning.cc: busBw = min(busBw,
// nChannels x perChMaxTreeBw), Tree algBw = busBw / 2, and the chain moves 2 x bytes per GPU), by scale: one domain,
// two, more. line_time() and chosen_line() both take it from here.
[[gnu::always_inline]] inline double line_level_bw(const CollectiveRequest& request, const CollectiveTopology& topology,
                                                   const GroupShape& shape, const AlgorithmLines& lines, int i,
                                                   double bw_scale, double share, CollectiveAlgorithm algorithm,
                                                   Protocol protocol) {
  double bw = lines.level_bw[i] * bw_scale;
  if (i == 0) {
    // NCCL runs AllToAll and SendRecv through one kernel (grouped ncclSend/ncclRecv: enqueue.cc
    // scheduleP2pTasksToPlan gives every point-to-point task ncclDevFuncId_P2p, at 5067397c), so
    // both deliver the same fraction of the links' rate on the channels NCCL starts a peer on;
    // once it spreads each peer over more of them the loss shrinks in proportion
    // (collective_p2p_channels.h). DeepEP's and HybridEP's kernels (request.nccl_p2p false) keep
    // the starting channels' fraction: NCCL's scheduler does not run them.
    if (request.op == CollectiveOp::all_to_all || request.op == CollectiveOp::send_recv) {
      bw *= request.nccl_p2p ? nccl_p2p_rate_share(topology.alltoall_bw_fraction, request.op, request.bytes,
                                                   shape.ranks, shape.domains)
                             : topology.alltoall_bw_fraction;
    }
    const int scale = shape.domains <= 1 ? 0 : shape.domains == 2 ? 1 : 2;
    const int p = static_cast<int>(protocol);
    double cap = 0;
    if (algorithm == CollectiveAlgorithm::tree) {
      cap = topology.tree_cap_bytes_per_s[scale][p];
      // NCCL caps Tree LL at the same llMaxBw as ring LL.
      if (protocol == Protocol::ll) cap = topology.ring_cap_bytes_per_s[scale][p];
    } else if (algorithm == CollectiveAlgorithm::ring) {
      cap = topology.ring_cap_bytes_per_s[scale][p];
    }
    if (cap > 0) bw = std::min(bw, cap * share);
  }
  return bw;
}

// The rate NCCL's send/receive kernel's channels cap a point-to-point line at inside one domain
// (cost/collective_p2p_channels.h): each channel is one CTA copying its part, so one GPU's sends
// run no faster than its send channels x the per-channel rate. Each collective runs its own
// CTAs, so concurrent collectives do not share it (they share the links: line_share). 0 = none:
// another library's kernels (nccl_p2p false), a group across domains, ring/tree/NVLS lines.
[[gnu::always_inline]] inline double p2p_channel_cap(const CollectiveRequest& request,
                                                     const CollectiveTopology& topology, const GroupShape& shape,
                                                     CollectiveAlgorithm algorithm) {
  if (algorithm != CollectiveAlgorithm::direct || !request.nccl_p2p || !(topology.p2p_channel_bw_bytes_per_s > 0)) {
    return 0;
  }
  return nccl_p2p_channel_cap(topology.p2p_channel_bw_bytes_per_s, request.op, request.bytes, shape.ranks,
                              shape.domains);
}

// The time of one (algorithm, protocol) line: the pipelined transfer (the slowest level sets
// the pace, T = max_i bytes_i / bw_i), the latency, and Simple's pipeline fill (until the
// pipe is full every step costs one chunk set at the rate of the link it crosses, never more
// than the transfer itself), without filling an estimate's per-level arrays: the choice
// compares every line by this, and chosen_line() builds the full estimate of one line.
struct LineTime {
  double latency_s = 0;  // with Simple's pipeline fill
  double transfer_s = 0;
  double time_s() const { return latency_s + transfer_s; }
};

[[gnu::always_inline]] inline LineTime line_time(const CollectiveRequest& request, const CollectiveTopology& topology,
                                                 const GroupShape& shape, const AlgorithmLines& lines,
                                                 CollectiveAlgorithm algorithm, Protocol protocol) {
  if (shape.ranks == 1) return {};
  const double share = line_share(request, topology, shape, algorithm, protocol);
  const double bw_scale = line_bw_scale(topology, algorithm, protocol, share);
  double transfer_s = 0;
  double in_bw = 0;   // level 0's rate as run (0 when it carries nothing), as simple_fill reads it
  double net_bw = 0;  // the slowest network level's rate as run
  const double p2p_cap = p2p_channel_cap(request, topology, shape, algorithm);
  for (int i = 0; i <= shape.top; ++i) {
    if (lines.traffic.bytes[i] <= 0) continue;
    const double bw = line_level_bw(request, topology, shape, lines, i, bw_scale, share, algorithm, protocol);
    // The send/receive kernel's channels bound the transfer, not the pipeline's first chunk,
    // which crosses at the links' rate (the fill below reads in_bw uncapped).
    const double run_bw = i == 0 && p2p_cap > 0 ? std::min(bw, p2p_cap) : bw;
    const double t = run_bw > 0 ? lines.traffic.bytes[i] / run_bw : HUGE_VAL;
    if (t > transfer_s) transfer_s = t;
    if (i == 0) {
      in_bw = bw;
    } else if (bw > 0 && (net_bw == 0 || bw < net_bw)) {
      net_bw = bw;
    }
  }
  const Steps& st = lines.steps;
  double latency_s = latency(algorithm, protocol, shape, st, topology);
  // The transport's per-message costs (flush, rendezvous, one rail), per step across domains.
  if (topology.net_message_costs && shape.domains > 1) {
    latency_s +=
        collective_detail::net_message_cost(request.op, algorithm, protocol, request.bytes, st.inter, shape, topology)
            .total_s();
  }
  if (protocol == Protocol::simple && topology.simple_step_bytes > 0) {
    // A multi-domain group pipelines in the transport's chunk where its profile sets one.
    const double step = shape.domains > 1 && topology.net_simple_step_bytes > 0 ? topology.net_simple_step_bytes
                                                                                : topology.simple_step_bytes;
    const double crowd = collective_detail::nic_crowding(shape, topology, topology.net_channels);
    if (algorithm == CollectiveAlgorithm::tree) {
      // Tree/Simple's fixed chunk: a fill of the tree's depth, not capped at the transfer
      // (cost/collective_simple_fill.h).
      latency_s += tree_simple_fill_s(step, request.bytes, st.intra, st.inter, in_bw, net_bw, shape.per_domain, crowd);
    } else {
      double fill = 0;
      if (st.intra > 0 && in_bw > 0) fill += st.intra * step / in_bw;
      // A ring's chunk set crosses between domains through all the domain's NICs at once
      // (cost/collective_simple_fill.h); NVLS_TREE's heads and the point-to-point path keep one
      // GPU's network rate (net_fill_share: the head NIC's shared rate).
      const double net_rate =
          algorithm == CollectiveAlgorithm::ring ? chunk_set_net_rate(net_bw, shape.per_domain, crowd) : net_bw;
      if (st.inter > 0 && net_bw > 0) fill += st.inter * step * lines.net_fill_share / net_rate;
      latency_s += std::min(fill, transfer_s);
    }
  }
  return {latency_s, transfer_s};
}

// The full estimate of a line line_time() costed, from what it and algorithm_lines() computed
// (each level's bytes, rate and time, the bottleneck), without costing the line a second time.
// The one place an estimate of a line is built: estimate_collective (the winner) and
// estimate_collective_with (a forced line) both end here.
CollectiveEstimate chosen_line(const CollectiveRequest& request, const CollectiveTopology& topology,
                               const GroupShape& shape, const AlgorithmLines& lines, const LineTime& time,
                               CollectiveAlgorithm algorithm, Protocol protocol) {
  CollectiveEstimate e;
  e.algorithm = algorithm;
  e.protocol = protocol;
  if (shape.ranks == 1) return e;  // one GPU: nothing to move, nothing to pay
  const double share = line_share(request, topology, shape, algorithm, protocol);
  const double bw_scale = line_bw_scale(topology, algorithm, protocol, share);
  double slowest = 0;
  const double p2p_cap = p2p_channel_cap(request, topology, shape, algorithm);
  if (p2p_cap > 0) {
    e.p2p_channels = nccl_p2p_send_channels(request.op, request.bytes, shape.ranks, shape.domains);
    e.p2p_channel_cap_bytes_per_s = p2p_cap;
  }
  e.nvls_tree_chunk_bytes = lines.nvls_tree_chunk_bytes;
  e.net_step_cap_bytes_per_s = lines.net_step_cap_bytes_per_s;
  for (int i = 0; i <= shape.top; ++i) {
    e.level_bytes[i] = lines.traffic.bytes[i];
    if (lines.traffic.bytes[i] <= 0) continue;
    double bw = line_level_bw(request, topology, shape, lines, i, bw_scale, share, algorithm, protocol);
    if (i == 0 && p2p_cap > 0) bw = std::min(bw, p2p_cap);
    e.level_bw_bytes_per_s[i] = bw;
    e.level_time_s[i] = bw > 0 ? lines.traffic.bytes[i] / bw : HUGE_VAL;
    if (e.level_time_s[i] > slowest) {
      slowest = e.level_time_s[i];
      e.bottleneck_level = i;
    }
  }
  const collective_detail::NetMessageCost msg = collective_detail::net_message_cost(
      request.op, algorithm, protocol, request.bytes, lines.steps.inter, shape, topology);
  if (msg.steps > 0) {
    e.net_message_bytes = msg.message_bytes;
    e.net_steps = msg.steps;
    e.net_flush_s = msg.flush_s;
    e.net_rendezvous_s = msg.rendezvous_s;
    e.net_rail_s = msg.rail_s;
  }
  e.transfer_s = time.transfer_s;
  e.latency_s = time.latency_s;
  e.time_s = e.latency_s + e.transfer_s;
  if (e.time_s > 0) {
    e.algbw_bytes_per_s = request.bytes / e.time_s;
    e.busbw_bytes_per_s = e.algbw_bytes_per_s * busbw_factor(request.op, shape.ranks);
  }
  return e;
}

}  // namespace

CollectiveEstimate estimate_collective_with(const CollectiveRequest& request, const CollectiveTopology& topology,
                                            CollectiveAlgorithm algorithm, Protocol protocol) {
  CollectiveEstimate e;
  e.algorithm = algorithm;
  e.protocol = protocol;
  GroupShape shape;
  if (!group_ok(request, topology, shape, e)) return e;
  if (const char* why = unavailable(request.op, algorithm, protocol, shape, topology, request.bytes)) {
    e.feasible = false;
    e.reason = why;
    return e;
  }
  const AlgorithmLines lines = algorithm_lines(request, topology, shape, algorithm);
  return chosen_line(request, topology, shape, lines, line_time(request, topology, shape, lines, algorithm, protocol),
                     algorithm, protocol);
}

namespace {

constexpr CollectiveAlgorithm kAlgorithms[] = {CollectiveAlgorithm::ring, CollectiveAlgorithm::tree,
                                               CollectiveAlgorithm::nvls, CollectiveAlgorithm::direct};
constexpr Protocol kProtocols[] = {Protocol::ll, Protocol::ll128, Protocol::simple};

// The pairs auto_ considers: NCCL leaves Tree to multi-domain groups, NVLS to groups of at
// least nvls_min_gpus in a domain (collective_params: "NVLS only above 4 GPUs on H200") and
// SHARP to groups that span domains.
bool auto_considers(const CollectiveRequest& request, const CollectiveTopology& topology, CollectiveAlgorithm a) {
  if (request.algorithm != CollectiveAlgorithm::auto_) return a == request.algorithm;
  if (a == CollectiveAlgorithm::tree) return request.domains > 1;
  if (a == CollectiveAlgorithm::nvls) {
    return (topology.nvls() && request.gpus_per_domain >= topology.nvls_min_gpus) ||
           (topology.sharp() && request.domains > 1);
  }
  return true;
}

}  // namespace

namespace {

// NCCL's choice for a request: the first cheapest of every line auto_ (or the forced
// algorithm) may run, compared by time alone (line_time). The winner's traffic, bandwidths
// and time are kept, from which estimate_collective fills in its full estimate (chosen_line);
// estimate_collective_time needs the time only.
// kKeepLines: whether the winner's AlgorithmLines are kept (estimate_collective builds the full
// estimate from them; estimate_collective_time reads the time only, and its Choice holds no
// lines to initialise or copy).
struct NoLines {};

template <bool kKeepLines>
struct Choice {
  bool found = false;
  const char* reason = "";  // why not, when nothing was found
  GroupShape shape;
  LineTime time;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Protocol protocol = Protocol::simple;
  [[no_unique_address]] std::conditional_t<kKeepLines, AlgorithmLines, NoLines> lines;
};

// f(std::integral_constant<T, v>{}) for each v in order: the choice's loops over algorithms and
// protocols unrolled, so that every line is costed by code specialised to its algorithm and
// protocol (line_time and algorithm_lines inline, their switches and protocol tests folded
// away); the same arithmetic in the same order as a loop would run.
template <auto... kValues, class F>
[[gnu::always_inline]] inline void for_each_constant(F&& f) {
  (f(std::integral_constant<decltype(kValues), kValues>{}), ...);
}

template <bool kKeepLines>
[[gnu::always_inline]] inline void choose(const CollectiveRequest& request, const CollectiveTopology& topology,
                                          Choice<kKeepLines>& c) {
  const char* reason = group_problem(request, topology, c.shape);
  if (reason != nullptr) {
    c.reason = reason;
    return;
  }
  reason = "no algorithm runs this collective here";
  // An algorithm the group cannot run is rejected once, with the reason each of its protocols
  // would give (unavailable() checks the algorithm before the protocol). The first of equal
  // times wins. The order is kAlgorithms' and kProtocols'.
  for_each_constant<CollectiveAlgorithm::ring, CollectiveAlgorithm::tree, CollectiveAlgorithm::nvls,
                    CollectiveAlgorithm::direct>([&](auto algorithm) __attribute__((always_inline)) {
    constexpr CollectiveAlgorithm a = decltype(algorithm)::value;
    if (!auto_considers(request, topology, a)) return;
    if (const char* why = algorithm_unavailable(request.op, a, c.shape, topology, request.bytes)) {
      if (!c.found) reason = why;
      return;
    }
    const AlgorithmLines lines = algorithm_lines(request, topology, c.shape, a);
    [[maybe_unused]] bool best_is_a = false;  // the winner so far is one of this algorithm's lines
    for_each_constant<Protocol::ll, Protocol::ll128, Protocol::simple>([&](
        auto protocol) __attribute__((always_inline)) {
      constexpr Protocol p = decltype(protocol)::value;
      if (const char* why = protocol_unavailable(a, p, c.shape, topology)) {
        if (!c.found) reason = why;
        return;
      }
      if (const char* why = p2p_protocol_unavailable(request.op, a, p, c.shape, request.bytes)) {
        if (!c.found) reason = why;
        return;
      }
      if (const char* why = library_net_protocol_unavailable(request.op, a, p, c.shape, topology, request.bytes)) {
        if (!c.found) reason = why;
        return;
      }
      const LineTime t = line_time(request, topology, c.shape, lines, a, p);
      if (!c.found || t.time_s() < c.time.time_s()) {
        c.found = true;
        c.time = t;
        c.algorithm = a;
        c.protocol = p;
        best_is_a = true;
      }
    });
    if constexpr (kKeepLines) {
      if (best_is_a) c.lines = lines;
    }
  });
  if (!c.found) c.reason = reason;
}

}  // namespace

CollectiveEstimate estimate_collective(const CollectiveRequest& request, const CollectiveTopology& topology) {
  Choice<true> c;
  choose(request, topology, c);
  if (!c.found) {
    CollectiveEstimate none;
    none.feasible = false;
    none.reason = c.reason;
    return none;
  }
  return chosen_line(request, topology, c.shape, c.lines, c.time, c.algorithm, c.protocol);
}

CollectiveTime estimate_collective_time(const CollectiveRequest& request, const CollectiveTopology& topology) {
  Choice<false> c;
  choose(request, topology, c);
  CollectiveTime t;
  t.feasible = c.found;
  t.reason = c.found ? "" : c.reason;
  t.time_s = c.found ? c.time.time_s() : 0;
  return t;
}

std::vector<CollectiveEstimate> collective_candidates(const CollectiveRequest& request,
                                                      const CollectiveTopology& topology) {
  std::vector<CollectiveEstimate> out;
  for (CollectiveAlgorithm a : kAlgorithms) {
    if (!auto_considers(request, topology, a)) continue;
    for (Protocol p : kProtocols) {
      // The lines auto chooses among: the library's protocol by size across nodes too.
      GroupShape shape;
      shape.ranks = request.gpus();
      shape.domains = request.domains;
      if (library_net_protocol_unavailable(request.op, a, p, shape, topology, request.bytes)) continue;
      CollectiveEstimate e = estimate_collective_with(request, topology, a, p);
      if (e.feasible) out.push_back(e);
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.time_s < y.time_s; });
  return out;
}

}  // namespace gpuplan
