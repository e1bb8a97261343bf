// The constants of the collective cost model (src/cost/collective*.cpp), in SI units: NCCL's
// own latency constants, measured link efficiencies and the few figures fitted to nccl-tests.
// Loaded from data/fitted/collectives/*.toml (`kind = "collective_params"`) by
// collective_params_parse.cpp; every figure carries its source in the data file.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/provenance.h"

namespace gpuplan {

// NCCL's three wire protocols, in the order every per-protocol array below uses.
enum class Protocol { ll = 0, ll128 = 1, simple = 2 };
inline constexpr int kProtocolCount = 3;
using PerProtocol = std::array<double, kProtocolCount>;  // LL, LL128, Simple

// One GPU architecture's protocol ranges across nodes (RCCL's llProtoRanges rows), indexed
// [ReduceScatter, AllGather, AllReduce]; sizes in bytes per rank (AllReduce: the whole buffer),
// each range (min, max]. Outside both ranges the library runs Simple; LL128 wins where both hold.
struct NetProtocolRange {
  std::string architecture;  // a prefix of the GPU's `architecture` ("CDNA 3" = gfx942)
  std::array<double, 3> ll_min_bytes{};
  std::array<double, 3> ll_max_bytes{};
  std::array<double, 3> ll128_min_bytes{};
  std::array<double, 3> ll128_max_bytes{};
  std::string release;  // the library release / commit the table was read at
};

// How one kind of link behaves under collectives. `link` names a catalog link id ("nvlink4"),
// a link family ("nvlink", "infiniband", "pcie", "xgmi") or "default"; the model takes the
// most specific entry that matches.
struct CollectiveLinkParams {
  std::string link;
  // Achieved / line rate for large messages with the Simple protocol (nccl-tests busbw / link
  // rate at multi-GB sizes).
  double bw_efficiency = 1.0;
  // In-network reduction (NVLS inside a domain, SHARP in a fabric): achieved AllReduce algbw /
  // line rate. Absent: the link's switches cannot reduce, or nobody measured it (then the
  // model uses bw_efficiency).
  std::optional<double> reduction_bw_efficiency;
  // NVLS inside a domain as NCCL's tuner costs it (src/graph/tuning.cc / src/tuning/nvls.cc:
  // busBw = 2 x nvlsEfficiency x bwIntra, algBw = busBw x nRanks / nSteps): a bus bandwidth that
  // does not depend on the group size, / line rate (up to 2, since the switch reduces). NVLS
  // runs at the lower of it and reduction_bw_efficiency (egress). Absent: egress only.
  std::optional<double> nvls_busbw_efficiency;
  PerProtocol ring_hop_latency_s{};  // one ring step over this link
  // The collective library that drives domains of this scale-up link, when it is not NCCL: its
  // own fixed cost per collective (RCCL's baseLat on AMD xGMI), in place of the parameter set's
  // ring_base_latency_s / tree_base_latency_s. Absent: the parameter set's.
  std::optional<PerProtocol> ring_base_latency_s;
  std::optional<PerProtocol> tree_base_latency_s;
  std::string library;  // "rccl"; "" = the parameter set's library (NCCL)
  // One-shot AllReduce on a fully connected mesh of this link (RCCL on xGMI): every GPU reads
  // the whole buffer from each peer over its own link and reduces locally, one step at the
  // library's base latency + one hop, instead of a ring's 2 (g - 1) steps. Single domain only.
  bool one_shot_allreduce = false;
  double one_shot_max_bytes = 0;  // the library uses it up to this size (RCCL_MSCCLPP_THRESHOLD)
  PerProtocol tree_hop_latency_s{};  // one tree step over this link
  // The GPU generation's fixed cost per collective against the Hopper GPUs NCCL's latency
  // figures match (NCCL's tuner has one NVLink latency set for every generation): it multiplies
  // the library's base latency and this link's per-step hops for groups whose scale-up link
  // this is (docs/model/collectives.md, "Fixed cost per GPU
  // generation"). Measured, not fitted; 1 = NCCL's figures as they stand.
  double fixed_cost_ratio = 1.0;
  // NCCL flushes every Simple receive from the network on this generation (NCCL
  // src/graph/paths.cc ncclTopoNeedFlush: compute capability < 9.0, i.e. before Hopper): the
  // transport's flush_latency_s applies to groups whose scale-up link this is.
  bool net_receive_flush = false;
  // NCCL's per-channel ceiling on a Tree AllReduce's bus bandwidth for the GPU generation this
  // link belongs to (src/graph/tuning.cc perChMaxTreeBws / perChMaxTreeLL128Bws: busBw =
  // min(busBw, nChannels x ceiling), by scale: one node, two nodes, more), bytes/s per channel,
  // [scale][protocol]; 0 = no ceiling (LL, and links NCCL has no figure for).
  std::array<PerProtocol, 3> tree_channel_max_bw_bytes_per_s{};
  // NCCL's ceilings on a ring's bus bandwidth for the GPU generation this link belongs to
  // (src/graph/tuning.cc), by scale (one node, two nodes, more), bytes/s: `ll_max_bw_bytes_per_s`
  // caps LL (llMaxBws: ring LL busBw = min(llMaxBw, busBw / 2), Tree LL min(busBw / 3.8, llMaxBw)),
  // `ring_ll128_channel_max_bw_bytes_per_s` is per channel for ring LL128 (perChMaxRingLL128Bws:
  // busBw = min(0.92 busBw, nChannels x it)). 0 = no ceiling (links NCCL has no figure for).
  std::array<double, 3> ll_max_bw_bytes_per_s{};
  std::array<double, 3> ring_ll128_channel_max_bw_bytes_per_s{};
  // NVLS compute channels NCCL runs on this GPU generation (src/transport/nvls.cc
  // NVLS_NCHANNELS_SM90 16, NVLS_NCHANNELS_SM100 32): with the heads, NVLS_TREE's chunk
  // thresholds (cost/collective_nvls_tree.h). 0 = unknown (no small-buffer chunk cut).
  int nvls_channels = 0;
  // The library's protocol by size for groups that span nodes, per GPU architecture (RCCL's
  // rcclUpdateCollectiveProtocol over its tuning model's llProtoRanges; docs/model/collectives.md,
  // "RCCL's protocol ranges across nodes"). Empty: the cheapest protocol, as NCCL's tuner picks.
  std::vector<NetProtocolRange> net_protocol_ranges;
  std::string notes;
  Provenance provenance;
};

// How a scale-out transport (InfiniBand, RoCE, AWS EFA, GCP GPUDirect-TCPX/TCPXO, Ethernet
// sockets) carries collectives across the network: its per-step latencies, the wire protocols
// the collective library may run across it (a net plugin that cannot guarantee 8-byte ordered
// writes forces NCCL_PROTO=Simple), the share of the NIC's line rate it delivers, and the fixed
// cost a collective pays once it leaves the domain (a host-assisted data path). A system names
// its transport ([scaleout] transport = "..."); otherwise the entry listing its NIC, else the
// entry for its NIC's link family. Every figure carries its source in the data file.
struct CollectiveTransportParams {
  std::string id;    // "infiniband", "roce", "efa", "tcpxo", ...
  std::string name;  // "GCP GPUDirect-TCPXO (host-assisted TCP, FasTrak plugin)"
  std::string family;  // report group: "InfiniBand", "RoCE", "cloud", "Ethernet/TCP"
  std::vector<std::string> nics;  // NIC ids that use it unless the system says otherwise
  std::string link_family;        // NIC link family it is the default for ("infiniband"), or ""
  std::array<bool, kProtocolCount> net_protocols{true, true, true};  // LL, LL128, Simple across it
  // Algorithms a multi-domain group may run over it ("ring", "tree", "nvls", "direct"; the
  // cloud profiles set NCCL_ALGO and NCCL_NVLS_ENABLE=0). Empty = all.
  std::vector<std::string> net_algorithms;
  PerProtocol ring_hop_latency_s{};
  PerProtocol tree_hop_latency_s{};
  double bw_efficiency = 1.0;   // delivered / line rate, large messages
  double base_latency_s = 0;    // extra fixed cost per collective that crosses the network
  // Simple pipeline chunk where the NCCL a transport runs cuts its own (none in the catalog: GCP's
  // NCCL_DYNAMIC_CHUNK_SIZE is no upstream NCCL's); 0 = the parameter set's simple_step_bytes.
  double simple_step_bytes = 0;
  // AWS EFA's costs per message across the network (cost/collective_net_message.h;
  // docs/model/collectives.md, "AWS EFA's per-message costs"), each paid once per inter-domain
  // step of a line, 0 = none: a flush of every Simple receive on GPUs NCCL flushes for
  // (CollectiveLinkParams::net_receive_flush); a rendezvous for a per-channel message above the
  // eager limit; and, on aws-ofi-nccl's RDMA protocol, a message at or below its stripe threshold
  // riding one rail of its NET device (Nic::rails) instead of all of them.
  double flush_latency_s = 0;
  double eager_max_bytes = 0;  // 0 = no rendezvous term
  double rendezvous_latency_s = 0;
  double stripe_min_bytes = 0;  // 0 = every message striped
  std::string notes;
  Provenance provenance;
};

// Where a validation fold cannot see a fitted constant (no row of its training sources moves
// it), the constant takes its prior: a value set before looking at shared/data/collectives.csv,
// NCCL's own where NCCL has one ([priors] in data/fitted/collectives/nccl.toml, each with its
// source; src/validate/collective_constants_fit.cpp). `present` is false when the file has no [priors].
struct CollectiveFitPriors {
  bool present = false;
  double simple_step_bytes = 0;
  double alltoall_bw_fraction = 0;
  double p2p_latency_s = 0;
  double p2p_channel_bytes_per_clock = 0;
  double nvls_latency_s = 0;
  double nvls_hop_latency_s = 0;
  // The fitted per-generation NVLink hop latencies are NCCL's NVLink hops x one scale per
  // entry of `hop_scale_links`; the prior scale, and NCCL's hops it multiplies.
  double nvlink_hop_scale = 0;
  PerProtocol nccl_nvlink_ring_hop_s{};
  PerProtocol nccl_nvlink_tree_hop_s{};
  std::vector<std::string> hop_scale_links;
  // Large-message efficiency of the `bw_efficiency_links` entries (those fitted to nccl-tests,
  // not measured elsewhere): the prior is the mean of the measured NVLink generations.
  double nvlink_bw_efficiency = 0;
  std::vector<std::string> bw_efficiency_links;
  // The fixed cost per collective (`base_us`) of the `base_fitted_transports` entries (host-
  // assisted transports measured only by nccl-tests): the prior is what the net plugin tells
  // NCCL's tuner (GPUDirect-TCPXO's ncclNetProperties_t.latency = 0).
  double transport_base_latency_s = 0;
  std::vector<std::string> base_fitted_transports;
  // The EFA per-message costs fitted per fold ([priors] message_fitted_transports): their
  // flush_us and rendezvous_us, with these priors where a fold's rows do not show them.
  double transport_flush_latency_s = 0;
  double transport_rendezvous_latency_s = 0;
  std::vector<std::string> message_fitted_transports;
  Provenance provenance;
};

struct CollectiveParams {
  std::string id;  // "nccl"
  std::vector<std::string> aliases;
  std::string name;
  std::string notes;

  // Fixed cost of launching one collective, per algorithm (NCCL tuning.cc baseLat).
  PerProtocol ring_base_latency_s{};
  PerProtocol tree_base_latency_s{};
  // Share of the Simple bandwidth each protocol reaches on a ring (LL spends half of each 8-byte
  // word on a flag; LL128 one 8-byte flag per 128-byte line): NCCL's tuner figures, not fitted
  // (ring LL busBw / 2, LL128 x 0.92), each also under the link's ceilings above. Simple is 1.
  double ll_bw_fraction = 1.0;
  double ll128_bw_fraction = 1.0;
  // The same for a Tree AllReduce [LL, LL128, Simple] (NCCL: x 0.92 for every protocol, then
  // LL / 3.8 and LL128 x 120/128 across nodes). Absent in the file: the ring's, Simple 1.
  PerProtocol tree_bw_fraction{1.0, 1.0, 1.0};
  // Simple pipelines each step in chunks; before the pipe is full a step costs one chunk set
  // at the link's rate: per-step latency += simple_step_bytes / bandwidth.
  double simple_step_bytes = 0;
  // Multi-node Ring/Simple network latency multiplier (NCCL's "plateau" correction).
  double net_ring_simple_latency_factor = 1.0;

  // In-switch reduction (NVLS): fixed cost, and the smallest group NCCL uses it for.
  double nvls_latency_s = 0;
  int nvls_min_gpus = 2;
  // NVLS fixed cost per GPU of the group in the domain, so a 72-GPU NVL72 domain pays far more
  // than an 8-GPU node (fitted; NCCL's tuner charges NVLS a fixed 25 us, the 2 (ranks per node
  // - 1) x intraLat form being its CollNet Chain's). Fixed cost = nvls_latency_s + 2 (g - 1)
  // nvls_hop_latency_s.
  double nvls_hop_latency_s = 0;

  // NICs of one domain that carry the inter-domain phase: NCCL sends each channel through one
  // NIC, so a domain with more NICs than channels leaves some idle (0 = every NIC). Ring and
  // tree: net_channels; NVLS-tree: nvls_tree_heads (its "heads", <= NCCL_MAX_NVLS_ARITY).
  int net_channels = 0;
  int nvls_tree_heads = 0;
  // NVLS_TREE's network chunk (NCCL src/enqueue.cc calcCollChunking): NCCL_NVLS_CHUNKSIZE, cut
  // to `nvls_tree_max_chunk_bytes` once the group spans `nvls_tree_max_chunk_min_domains`
  // domains or more (NCCL_NVLSTREE_MAX_CHUNKSIZE's default), then halved for small buffers by
  // NCCL's thresholds on channels x heads x chunk (cost/collective_nvls_tree.h). 0 = no chunk rule.
  double nvls_chunk_bytes = 0;
  double nvls_tree_max_chunk_bytes = 0;
  int nvls_tree_max_chunk_min_domains = 0;
  // What one Simple network step costs the proxy that posts it (NCCL src/graph/tuning.cc:
  // getNetOverhead x 3 for Simple), so a head NIC moves at most one chunk per this each way;
  // 0 = no such bound.
  double net_step_overhead_s = 0;
  // Channels (CTAs) a Tree AllReduce runs on by default: with the links' per-channel Tree
  // ceiling (tree_channel_max_bw_bytes_per_s) it bounds Tree's bus bandwidth. 0 = no bound.
  int tree_channels = 0;
  // LL channel narrowing for small messages (NCCL enqueue.cc: channels, then threads, drop
  // while nBytes < channels x threads x threadThreshold; the ring LL threshold is 8 B x nRanks
  // per thread, 512 threads). Each of `ll_channels` channels fills at `ll_channel_fill_bytes_per_rank`
  // x ranks; below channels x that, only bytes / fill channels run and ring LL moves its wire
  // volume at that share of its full rate. 0 channels = no narrowing.
  int ll_channels = 0;
  double ll_channel_fill_bytes_per_rank = 0;

  // AllToAll and send/receive (grouped point-to-point): fixed cost, and the bandwidth it
  // reaches relative to a ring over the same scale-up links.
  double p2p_latency_s = 0;
  double alltoall_bw_fraction = 1.0;
  // NCCL's send/receive kernel moves at most this many bytes per SM clock cycle on one channel
  // (one CTA copying a peer's part), so a peer on c channels runs no faster than c x this x the
  // GPU's boost clock inside one domain (cost/collective_p2p_channels.h; docs/model/collectives.md
  // "NCCL's point-to-point channel rate"). 0 = no such bound.
  double p2p_channel_bytes_per_clock = 0;

  // The serving model's TP fallback on PCIe cards with no system in the catalog: a ring through
  // the host bridge. Delivered one-direction rate by PCIe generation (index 0 is
  // `host_pcie_first_generation` and every older or unknown one; the last entry covers newer
  // ones), and a fixed cost per ring hop. Empty when the file has no [host_pcie_ring] table.
  int host_pcie_first_generation = 0;
  std::vector<double> host_pcie_bw_bytes_per_s;
  double host_pcie_hop_latency_s = 0;
  Provenance host_pcie_provenance;

  // The host-PCIe ring rate for a GPU of PCIe generation `gen` (0 = unknown); 0 without data.
  double host_pcie_bw(int gen) const;

  std::vector<CollectiveLinkParams> links;
  std::vector<CollectiveTransportParams> transports;  // [[transport]]; empty = NICs use their [[link]]
  CollectiveFitPriors priors;      // [priors]: what a validation fold falls back to
  Provenance provenance;           // the file
  Provenance latency_provenance;   // [latency]: NCCL's constants
  Provenance protocol_provenance;  // [protocols]: the fitted figures

  // The entry for `link_id`, else for `family`, else "default"; nullptr when none matches.
  const CollectiveLinkParams* find_link(std::string_view link_id, std::string_view family) const;
  // The transport with this id; nullptr when none.
  const CollectiveTransportParams* find_transport(std::string_view id) const;
  // The transport whose `nics` lists `nic_id`, else whose link_family is `link_family`; nullptr when none.
  const CollectiveTransportParams* transport_for_nic(std::string_view nic_id, std::string_view link_family) const;
};

// Line rate, zero latency, every protocol at full rate: the idealised bounds the seed
// documents compute (`gpuplan collective --ideal`, golden tests).
CollectiveParams ideal_collective_params();

}  // namespace gpuplan
