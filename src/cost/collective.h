// Collective communication cost (AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast,
// SendRecv) on a real topology: a scale-up domain (NVLink/NVSwitch node, NVL72 rack, xGMI mesh,
// PCIe box) and optionally the fat tree above it. Formulas and sources: docs/model/collectives.md.
//
// Build a CollectiveTopology once per (system, fabric, parameters); estimate_collective is then
// a pure function that allocates nothing and looks nothing up by name, cheap enough for a plan
// search to call millions of times.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/collective_params.h"

namespace gpuplan {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send_recv };
// auto_ picks the cheapest, as NCCL's tuner does. direct is AllToAll/SendRecv point-to-point.
enum class CollectiveAlgorithm { auto_, ring, tree, nvls, direct };

inline constexpr int kMaxCollectiveLevels = 6;  // scale-up domain + up to five fabric levels

// Who takes part, and how they sit in the topology.
struct CollectiveRequest {
  CollectiveOp op = CollectiveOp::all_reduce;
  // The nccl-tests "size": the buffer each rank holds at the end (AllGather: the gathered
  // output; ReduceScatter: the full input; AllToAll: everything one rank sends).
  double bytes = 0;
  int gpus_per_domain = 1;  // ranks of the group inside each scale-up domain it spans
  int domains = 1;          // scale-up domains (nodes, racks) the group spans
  // Placement: consecutive domains of the group are this many domains apart. 1 = packed;
  // a data-parallel group under 256-way model parallelism on 8-GPU nodes has stride 32.
  int domain_stride = 1;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::auto_;
  // Collectives running at once over the same links; each gets 1/concurrent of every level.
  int concurrent = 1;
  // AllToAll and SendRecv: the bytes run NCCL's send/receive kernel, whose scheduler spreads a
  // peer over more channels once a part passes 16 MiB (cost/collective_p2p_channels.h). False
  // for another library's kernels over the same links (DeepEP, HybridEP: a MoE layer's flex or
  // DualPipe dispatch), which NCCL's channel rule does not reach: the send/receive fraction on
  // NCCL's starting channels, as before that rule.
  bool nccl_p2p = true;

  int gpus() const { return gpus_per_domain * domains; }
};

// One level of the hierarchy, as the model sees it (precomputed, SI units, per GPU).
struct CollectiveLevel {
  int gpus_per_unit = 0;                // GPUs under one unit (level 0: the domain's GPUs)
  int domains_per_unit = 1;             // scale-up domains under one unit (level 0: 1)
  double line_bw_bytes_per_s = 0;       // per GPU, one direction, line rate
  double bw_bytes_per_s = 0;            // per GPU, one direction, achieved (Simple, large messages)
  double reduction_bw_bytes_per_s = 0;  // per GPU, in-network reduction (NVLS/SHARP); 0 = none
  // Level 0 only: NVLS's bus bandwidth, independent of the group size (NCCL's tuner); 0 = none,
  // the egress bound reduction_bw_bytes_per_s alone.
  double reduction_busbw_bytes_per_s = 0;
  PerProtocol ring_hop_s{};
  PerProtocol tree_hop_s{};
};

enum class ScaleupKind { switched, mesh, pcie, none };

// Everything estimate_collective needs about one system (+ fabric), computed once.
struct CollectiveTopology {
  int domain_gpus = 1;  // GPUs in one scale-up domain
  ScaleupKind scaleup = ScaleupKind::switched;
  double mesh_peer_bw = 0;       // mesh only: per peer, achieved
  double mesh_peer_line_bw = 0;  // mesh only: per peer, line rate
  int level_count = 1;           // level 0 = scale-up domain; 1.. = network/fabric levels
  std::array<CollectiveLevel, kMaxCollectiveLevels> levels{};
  int max_domains = 0;  // domains the fabric holds (0 = unbounded)
  bool rail_optimized = false;

  PerProtocol ring_base_s{};
  PerProtocol tree_base_s{};
  // The scale-up link's fixed_cost_ratio (data/fitted/collectives): already folded into the
  // base latencies above and level 0's hops; kept to explain them.
  double fixed_cost_ratio = 1.0;
  PerProtocol protocol_bw_fraction{1.0, 1.0, 1.0};       // ring, NVLS, direct
  PerProtocol tree_protocol_bw_fraction{1.0, 1.0, 1.0};  // Tree AllReduce
  double simple_step_bytes = 0;
  double net_ring_simple_factor = 1.0;
  double nvls_latency_s = 0;
  double nvls_hop_s = 0;  // NVLS fixed cost per GPU of the group in the domain (x 2(g-1))
  int nvls_min_gpus = 2;
  // NICs per GPU, and how many NICs of a domain the inter-domain phase can use (0 = all).
  double nics_per_gpu = 1;
  int net_channels = 0;
  int nvls_tree_heads = 0;
  // NVLS_TREE's network chunk rule and the Simple network step's cost (collective_nvls_tree.h).
  double nvls_chunk_bytes = 0;
  double nvls_tree_max_chunk_bytes = 0;
  int nvls_tree_max_chunk_min_domains = 0;
  int nvls_channels = 0;
  double net_step_overhead_s = 0;
  double p2p_latency_s = 0;
  double alltoall_bw_fraction = 1.0;
  // One channel of NCCL's send/receive kernel: the parameter set's bytes per clock x the GPU's
  // boost clock (0 = no bound; RCCL's kernels are not bounded so). Inside one domain a peer on c
  // channels runs at most c x this (collective_p2p_channels.h).
  double p2p_channel_bw_bytes_per_s = 0;
  int ll_channels = 0;  // ring LL channel narrowing (ll_channel_share); 0 = none
  // Tree's bus-bandwidth ceiling per GPU, tree_channels x NCCL's per-channel Tree ceiling of the
  // scale-up link's generation, by scale (index: one domain, two, more) and protocol; 0 = none.
  // It bounds the chain inside the domain (level 0), where a Tree AllReduce moves 2 x bytes.
  std::array<PerProtocol, 3> tree_cap_bytes_per_s{};
  // NCCL's ceilings on a ring's bus bandwidth per GPU, by scale and protocol: LL at the
  // generation's llMaxBw (which also caps Tree LL), LL128 at ll_channels x perChMaxRingLL128Bw;
  // Simple none (0). They bound level 0 like the Tree ceiling (docs/model/collectives.md).
  std::array<PerProtocol, 3> ring_cap_bytes_per_s{};
  double ll_channel_fill_bytes_per_rank = 0;

  // The scale-out transport (data/fitted/collectives [[transport]]): the protocols a group
  // that spans domains may run (a net plugin that forces NCCL_PROTO=Simple leaves LL and LL128
  // out of the whole collective), and the fixed cost it adds once it crosses the network.
  std::array<bool, kProtocolCount> net_protocols{true, true, true};
  // Algorithms a multi-domain group may run over the transport (indexed by CollectiveAlgorithm;
  // auto_'s slot unused): the cloud profiles pin NCCL_ALGO and disable NVLS.
  std::array<bool, 5> net_algorithms{true, true, true, true, true};
  double net_base_s = 0;
  // The transport's per-message costs per inter-domain step (cost/collective_net_message.h):
  // the flush of a Simple receive where the scale-up link's generation flushes (0 otherwise),
  // the rendezvous above the eager limit, and the extra seconds per byte of a message at or
  // below the stripe threshold on one rail (1 / rail rate - 1 / device rate).
  bool net_message_costs = false;  // any of the three below set: the per-line check reads one flag
  double net_flush_s = 0;
  double net_eager_max_bytes = 0;
  double net_rendezvous_s = 0;
  double net_stripe_min_bytes = 0;
  double net_rail_s_per_byte = 0;
  int net_message_channels = 0;  // the channels a network message is split over at most (NCCL's default)
  // The Simple pipeline chunk of a multi-domain group where the transport's profile sets one
  // (0 = simple_step_bytes).
  double net_simple_step_bytes = 0;
  // A mesh domain whose library runs a one-shot AllReduce (RCCL on xGMI): `direct` then also
  // runs AllReduce inside one domain (docs/model/collectives.md, "RCCL").
  bool one_shot_allreduce = false;
  double one_shot_max_bytes = 0;
  // The library's protocol by size once a group spans domains (RCCL's rcclUpdateCollectiveProtocol
  // over its tuning model's llProtoRanges for the GPU's architecture), [ReduceScatter, AllGather,
  // AllReduce], bytes per rank, ranges (min, max]; unset: the cheapest protocol (NCCL's tuner).
  bool net_protocol_ranges = false;
  std::array<double, 3> net_ll_min_bytes{};
  std::array<double, 3> net_ll_max_bytes{};
  std::array<double, 3> net_ll128_min_bytes{};
  std::array<double, 3> net_ll128_max_bytes{};
  // RCCL stretches an AllReduce's LL128 maximum by this beyond two nodes ("Tree has special
  // behavior at 2 nodes", rcclUpdateCollectiveProtocol).
  static constexpr double kNetLl128AllReduceStretch = 3.8;

  // For reports only (never read by estimate_collective).
  std::array<std::string, kMaxCollectiveLevels> level_names;
  std::string system_id;
  std::string fabric_id;
  std::string params_id;
  std::string library;                 // the collective library costed: "nccl", or the scale-up link's ("rccl")
  std::string net_protocol_ranges_id;  // "CDNA 4 (<release>)" where net_protocol_ranges is set
  std::string transport;               // [[transport]] id the NIC levels use ("" = none: [[link]] figures)
  std::string transport_name;          // its description
  std::string transport_family;        // "InfiniBand", "RoCE", "cloud", "Ethernet/TCP"

  bool nvls() const { return levels[0].reduction_bw_bytes_per_s > 0; }
  bool sharp() const { return level_count > 1 && levels[1].reduction_bw_bytes_per_s > 0; }
};

// Precomputes the per-GPU bandwidths and latencies of every level. `fabric` may be null (then
// domains talk over their NICs with no switch limit). Throws Error on data the model cannot use
// (a fabric built from another system, a system without scale-up bandwidth).
CollectiveTopology make_collective_topology(const Catalog& catalog, const System& system, const Fabric* fabric,
                                            const CollectiveParams& params);

// The parameter set the catalog ships ("nccl"); throws Error when the catalog has none.
const CollectiveParams& default_collective_params(const Catalog& catalog);

struct CollectiveEstimate {
  bool feasible = true;
  const char* reason = "";  // why not, when infeasible (static text; details: check_collective_request)
  double time_s = 0;
  double latency_s = 0;          // the fixed part
  double transfer_s = 0;         // the bandwidth part (slowest level)
  double algbw_bytes_per_s = 0;  // bytes / time
  double busbw_bytes_per_s = 0;  // nccl-tests bus bandwidth
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Protocol protocol = Protocol::simple;
  int bottleneck_level = 0;                                         // index into CollectiveTopology::levels
  std::array<double, kMaxCollectiveLevels> level_bytes{};           // per GPU, through each level
  std::array<double, kMaxCollectiveLevels> level_bw_bytes_per_s{};  // per GPU, as run (protocol, sharing)
  std::array<double, kMaxCollectiveLevels> level_time_s{};
  // AllToAll and SendRecv on NCCL's send/receive kernel inside one domain: the channels (CTAs)
  // that carry this GPU's sends, and the rate they cap level 0 at (channels x the per-channel
  // rate); 0 when no such bound applies.
  int p2p_channels = 0;
  double p2p_channel_cap_bytes_per_s = 0;
  // The transport's per-message costs across the network, part of latency_s (all 0 inside one
  // domain or on a transport without them): the per-channel message of one inter-domain step,
  // the steps, and what the flushes, rendezvous and one-rail messages add in all.
  double net_message_bytes = 0;
  int net_steps = 0;
  double net_flush_s = 0;
  double net_rendezvous_s = 0;
  double net_rail_s = 0;
  // NVLS_TREE across domains: NCCL's network chunk for this buffer and the rate a head NIC's
  // proxy posts chunks at (chunk / the Simple net step's cost), which caps the network levels;
  // 0 when no such bound applies (cost/collective_nvls_tree.h).
  double nvls_tree_chunk_bytes = 0;
  double net_step_cap_bytes_per_s = 0;
};

// The cost of one collective. Never throws and never allocates; an impossible request (wrong
// group shape, an algorithm the hardware lacks) comes back with feasible = false.
CollectiveEstimate estimate_collective(const CollectiveRequest& request, const CollectiveTopology& topology);

// estimate_collective's feasibility, reason and time_s, to the bit, without its per-level
// detail: for callers that need the time only (the training evaluator, the serving step),
// where building the full estimate of the chosen line was a fifth of the cost.
struct CollectiveTime {
  bool feasible = true;
  const char* reason = "";  // as CollectiveEstimate::reason
  double time_s = 0;
};
CollectiveTime estimate_collective_time(const CollectiveRequest& request, const CollectiveTopology& topology);

// True when estimate_collective_time gives `a` and `b` the same answer on any topology: equal
// requests, or equal but for AllGather against ReduceScatter, which this model costs alike
// (the same ring steps and wire bytes, (n-1)/n x bytes per GPU, the same protocols and
// ceilings; neither runs Tree, NVLS or direct, and the reasons name no op). Lets a caller that
// asks both for one buffer (tensor parallelism with sequence parallelism) cost it once.
// Tested bit for bit against estimate_collective_time (collective_twin_test.cpp).
inline bool same_collective_time(const CollectiveRequest& a, const CollectiveRequest& b) {
  const auto twin = [](CollectiveOp op) { return op == CollectiveOp::reduce_scatter ? CollectiveOp::all_gather : op; };
  return twin(a.op) == twin(b.op) && a.bytes == b.bytes && a.gpus_per_domain == b.gpus_per_domain &&
         a.domains == b.domains && a.domain_stride == b.domain_stride && a.algorithm == b.algorithm &&
         a.concurrent == b.concurrent && a.nccl_p2p == b.nccl_p2p;
}

// One algorithm and protocol forced (auto_ is not allowed here): the building block of
// estimate_collective, exposed so reports can show every candidate.
CollectiveEstimate estimate_collective_with(const CollectiveRequest& request, const CollectiveTopology& topology,
                                            CollectiveAlgorithm algorithm, Protocol protocol);

// Every (algorithm, protocol) the request may use, each costed: the "why" behind a choice.
std::vector<CollectiveEstimate> collective_candidates(const CollectiveRequest& request,
                                                      const CollectiveTopology& topology);

// Throws Error with a message naming the problem and the fix, for bad user input.
void check_collective_request(const CollectiveRequest& request, const CollectiveTopology& topology);

// The share of its full rate a ring LL collective of `bytes` over `ranks` GPUs runs at, after
// NCCL's small-message channel narrowing (enqueue.cc: channels drop while nBytes < channels x
// threads x threshold; ring LL: 512 threads x 8 B x nRanks): one channel fills at
// fill = fill_bytes_per_rank x ranks, so bytes / fill of `channels` run, at least one and at
// most all. 1 when channels is 0. Between fill and channels x fill the transfer time is flat.
double ll_channel_share(double bytes, int ranks, int channels, double fill_bytes_per_rank);

// nccl-tests bus-bandwidth factor: 2(n-1)/n AllReduce; (n-1)/n AllGather, ReduceScatter,
// AllToAll; 1 Broadcast and SendRecv.
double busbw_factor(CollectiveOp op, int gpus);

// Names as users type them ("allreduce", "ring", "ll128") and back.
std::string_view op_name(CollectiveOp op);
std::string_view algorithm_name(CollectiveAlgorithm algorithm);
std::string_view protocol_name(Protocol protocol);
std::optional<CollectiveOp> parse_op(std::string_view text);
std::optional<CollectiveAlgorithm> parse_algorithm(std::string_view text);

}  // namespace gpuplan
