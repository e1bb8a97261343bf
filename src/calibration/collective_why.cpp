// The answer's "why" of `gpuplan collective`: which algorithm and protocol won and what limits
// them, in words built from the estimate, the candidates and the topology (moved here from
// report/ so that the report only formats; issue 33).
#include <fmt/format.h>

#include "calibration/collective_question.h"
#include "core/units.h"
#include "cost/collective_p2p_channels.h"

namespace gpuplan {
namespace {

std::string why_candidate_name(const CollectiveEstimate& e) {
  return fmt::format("{}/{}", algorithm_name(e.algorithm), protocol_name(e.protocol));
}

// "LL128, Simple": the protocols a multi-domain group may run over the transport.
std::string why_net_protocols_text(const CollectiveTopology& t) {
  std::string out;
  for (Protocol p : {Protocol::ll, Protocol::ll128, Protocol::simple}) {
    if (!t.net_protocols[static_cast<int>(p)]) continue;
    out += fmt::format("{}{}", out.empty() ? "" : ", ", protocol_name(p));
  }
  return out;
}

bool why_net_protocols_restricted(const CollectiveTopology& t) {
  return !(t.net_protocols[0] && t.net_protocols[1] && t.net_protocols[2]);
}

}  // namespace

std::string collective_why(const CollectiveQuery& q, const CollectiveTopology& t, const CollectiveEstimate& chosen,
                           const std::vector<CollectiveEstimate>& candidates) {
  const CollectiveRequest& r = q.request;
  std::string why;
  if (r.gpus() == 1) return "one GPU: nothing to move";
  if (r.algorithm == CollectiveAlgorithm::auto_) {
    why = fmt::format("cheapest of {} algorithm/protocol lines (NCCL-style tuner)", candidates.size());
    for (const auto& c : candidates) {
      if (c.algorithm == chosen.algorithm && c.protocol == chosen.protocol) continue;
      why += fmt::format("; next {} at {:+.0f}%", why_candidate_name(c), (c.time_s / chosen.time_s - 1) * 100);
      break;
    }
  } else {
    why = fmt::format("{} forced by --algorithm; {} is its cheapest protocol", algorithm_name(r.algorithm),
                      protocol_name(chosen.protocol));
  }
  if (r.op == CollectiveOp::all_reduce && t.nvls() && r.algorithm == CollectiveAlgorithm::auto_ &&
      r.gpus_per_domain < t.nvls_min_gpus) {
    why += fmt::format("; NVLS not considered: NCCL uses it only for {} or more GPUs in a domain", t.nvls_min_gpus);
  }
  if ((r.op == CollectiveOp::all_gather || r.op == CollectiveOp::reduce_scatter) && t.nvls()) {
    why += "; in-switch reduction (NVLS) does not speed up AllGather/ReduceScatter";
  }
  if (r.op == CollectiveOp::all_reduce && chosen.algorithm == CollectiveAlgorithm::direct) {
    why += fmt::format("; one-shot on the full mesh ({}): each GPU reads the buffer from every peer in one step",
                       t.library);
  }
  // docs/model/collectives.md "Fixed cost per GPU generation": NCCL's latencies are Hopper's;
  // say so when a generation's measured ratio set most of the time.
  if (t.fixed_cost_ratio != 1.0 && chosen.latency_s > chosen.transfer_s &&
      !(chosen.algorithm == CollectiveAlgorithm::nvls && t.nvls())) {
    why += fmt::format(
        "; latency-bound: NCCL's base and per-step latencies x {:.2f} for this GPU generation (against Hopper, "
        "whose figures NCCL's are)",
        t.fixed_cost_ratio);
  }
  if (r.op == CollectiveOp::all_to_all) {
    why += r.domains > 1 ? "; point-to-point, bound by the NICs across domains" : "; point-to-point over the switch";
  }
  // docs/model/collectives.md: AllToAll and SendRecv run NCCL's one send/receive kernel, at one
  // fraction of the scale-up links' rate.
  // Once NCCL spreads each peer over more channels than it starts it on, the links' full rate
  // (collective_p2p_channels.h).
  if ((r.op == CollectiveOp::all_to_all || r.op == CollectiveOp::send_recv) && t.alltoall_bw_fraction != 1.0) {
    if (nccl_p2p_channels_widened(r.op, r.bytes, r.gpus(), r.domains)) {
      why += fmt::format(
          "; NCCL spreads each peer over {} channels, not its {} starting ones (a part above 16 MiB): its "
          "send/receive kernel delivers {:.3g} x the links' rate inside the domain ({:.3g} on the starting channels)",
          nccl_p2p_channels(r.op, r.bytes, r.gpus(), r.domains), nccl_p2p_start_channels(r.gpus()),
          nccl_p2p_rate_share(t.alltoall_bw_fraction, r.op, r.bytes, r.gpus(), r.domains), t.alltoall_bw_fraction);
    } else {
      why += fmt::format("; NCCL's send/receive kernel delivers {:.3g} x the links' rate inside the domain",
                         t.alltoall_bw_fraction);
    }
  }
  // docs/model/collectives.md "NCCL's point-to-point channel rate": each channel is one CTA
  // copying its part, so few channels a peer cap the rate below the links'.
  if (chosen.p2p_channels > 0 && chosen.level_bw_bytes_per_s[0] >= chosen.p2p_channel_cap_bytes_per_s) {
    why += fmt::format(
        "; NCCL's send/receive kernel carries each GPU's sends on {} channels ({} a peer) at {:.3g} GB/s each: the "
        "channels, not the links, set the rate",
        chosen.p2p_channels, nccl_p2p_channels(r.op, r.bytes, r.gpus(), r.domains), t.p2p_channel_bw_bytes_per_s / 1e9);
  }
  // docs/model/collectives.md: NCCL picks a send/receive's protocol per peer (enqueue.cc
  // addP2pToPlan), not by the tuner.
  if (chosen.algorithm == CollectiveAlgorithm::direct &&
      (r.op == CollectiveOp::all_to_all || r.op == CollectiveOp::send_recv)) {
    why += "; NCCL sends to each peer on LL up to 16 KiB (NCCL_P2P_LL_THRESHOLD), else Simple, never LL128";
    if (r.domains > 1) {
      // docs/model/collectives.md "Point-to-point across the network": no LL buffers there.
      why +=
          "; across the network Simple only (the net transport allocates no LL buffers for point-to-point: "
          "NCCL_ALLOC_P2P_NET_LL_BUFFERS=0)";
    }
  }
  if (chosen.algorithm == CollectiveAlgorithm::nvls && r.domains > 1 && !t.sharp()) {
    why += "; NVLS inside each domain and a tree across domains (NCCL NVLS_TREE): no switch of the network reduces";
  }
  if (chosen.algorithm == CollectiveAlgorithm::tree && r.domains > 1) {
    // docs/model/collectives.md: each of the two trees carries half the buffer over its M - 1
    // edges, up and down, so a domain sends 2(M - 1)/M buffers through its NICs.
    why += fmt::format("; a double binary tree across the {} domains: each sends {:.2g} x the buffer through its NICs",
                       r.domains, 2.0 * (r.domains - 1) / r.domains);
  }
  if (chosen.algorithm == CollectiveAlgorithm::tree && chosen.protocol == Protocol::simple) {
    // docs/model/collectives.md "Tree/Simple's fixed chunk" (cost/collective_simple_fill.h).
    int levels = 0;
    while ((1 << levels) < r.domains) ++levels;
    why += fmt::format(
        "; Tree on Simple pipelines NCCL's fixed chunk (NCCL_BUFFSIZE / NCCL_STEPS per channel, whatever the "
        "size): until the pipe is full each of its {} hops costs one chunk set, in the latency",
        2 * (r.gpus_per_domain - 1) + 2 * levels);
  }
  if (chosen.algorithm == CollectiveAlgorithm::nvls && t.sharp() && r.domains > 1) {
    why += "; the fabric's switches reduce across domains (SHARP / CollNet)";
  }
  if (r.domains > 1 && why_net_protocols_restricted(t)) {
    why += fmt::format(
        "; across the network the {} transport carries {} only (NCCL_PROTO as its net plugin or NCCL's LL128 "
        "path gate sets it)",
        t.transport, why_net_protocols_text(t));
  }
  // docs/model/collectives.md "RCCL's protocol ranges across nodes": the library's size rule,
  // not its cost model, sets the protocol of a multi-node AllReduce / AllGather / ReduceScatter.
  const int range_row = r.op == CollectiveOp::all_reduce ? 2 : -1;  // AllReduce only (collective_protocols.cpp)
  if (r.domains > 1 && t.net_protocol_ranges && range_row >= 0 && chosen.algorithm != CollectiveAlgorithm::direct &&
      chosen.algorithm != CollectiveAlgorithm::nvls) {
    const double per_rank = r.op == CollectiveOp::all_reduce ? r.bytes : r.bytes / std::max(1, r.gpus());
    const double ll128_max = t.net_ll128_max_bytes[range_row] *
                             (r.op == CollectiveOp::all_reduce && r.domains > 2 ? t.kNetLl128AllReduceStretch : 1.0);
    why += fmt::format(
        "; across nodes RCCL sets the protocol by size, not by cost (rcclUpdateCollectiveProtocol, {}): {} per rank, "
        "LL in ({}, {}], LL128 in ({}, {}], Simple outside: {}",
        t.net_protocol_ranges_id, format_bytes(per_rank, true), format_bytes(t.net_ll_min_bytes[range_row], true),
        format_bytes(t.net_ll_max_bytes[range_row], true), format_bytes(t.net_ll128_min_bytes[range_row], true),
        format_bytes(ll128_max, true), protocol_name(chosen.protocol));
  }
  if (r.domains > 1 && t.net_base_s > 0) {
    why += fmt::format("; the {} transport adds {} per collective that leaves the domain", t.transport,
                       format_seconds(t.net_base_s));
  }
  // The LL ceiling a library sets for multi-node groups only (none inside one domain), when it
  // holds the chosen Tree/LL line's chain: 0 otherwise.
  double host_ll_cap = 0;
  if (chosen.algorithm == CollectiveAlgorithm::tree && chosen.protocol == Protocol::ll && r.domains > 1 &&
      chosen.bottleneck_level == 0 && t.ring_cap_bytes_per_s[0][static_cast<int>(Protocol::ll)] == 0) {
    const double cap = t.ring_cap_bytes_per_s[r.domains == 2 ? 1 : 2][static_cast<int>(Protocol::ll)] / r.concurrent;
    if (cap > 0 && chosen.level_bw_bytes_per_s[0] >= cap * (1 - 1e-9)) host_ll_cap = cap;
  }
  if (chosen.bottleneck_level > 0 && chosen.bottleneck_level < t.level_count) {
    why += fmt::format("; limited by the scale-out network ({})", t.level_names[chosen.bottleneck_level]);
    const int channels = chosen.algorithm == CollectiveAlgorithm::nvls && t.nvls() ? t.nvls_tree_heads : t.net_channels;
    const double nics = r.gpus_per_domain * t.nics_per_gpu;
    if (channels > 0 && nics > channels) {
      why += fmt::format(": {} of the {:.0f} NICs per domain carry it, one per NCCL channel", channels, nics);
    }
    // NVLS_TREE's heads post one chunk per Simple net step (cost/collective_nvls_tree.h).
    if (chosen.net_step_cap_bytes_per_s > 0 &&
        chosen.level_bw_bytes_per_s[chosen.bottleneck_level] >= chosen.net_step_cap_bytes_per_s * (1 - 1e-9)) {
      why += fmt::format(", each at one {:.0f} KiB chunk per {} net step ({:.1f} GB/s)",
                         chosen.nvls_tree_chunk_bytes / 1024, format_seconds(t.net_step_overhead_s),
                         chosen.net_step_cap_bytes_per_s / 1e9);
    }
  } else if (r.domains > 1 && host_ll_cap > 0) {
    // docs/model/collectives.md "LL across nodes at the host's rate": a library whose LL ceiling
    // is set for multi-node groups only (RCCL on xGMI: none inside a node) binds Tree's LL too.
    why += fmt::format(
        "; LL across nodes runs at the host's rate ({:.1f} GB/s per GPU, NCCL's llMaxBw for AMD hosts): the sender's "
        "LL buffer sits in host memory even with GPUDirect RDMA",
        host_ll_cap / 1e9);
  } else if (r.domains > 1) {
    // Tree's chain may be held below the link rate by NCCL's per-channel Tree ceiling.
    const int scale = r.domains == 2 ? 1 : 2;
    const double cap = chosen.algorithm == CollectiveAlgorithm::tree
                           ? t.tree_cap_bytes_per_s[scale][static_cast<int>(chosen.protocol)] / r.concurrent
                           : 0.0;
    if (cap > 0 && chosen.bottleneck_level == 0 && chosen.level_bw_bytes_per_s[0] >= cap * (1 - 1e-9)) {
      why += fmt::format(
          "; limited by Tree's channels in {} (NCCL's per-channel Tree ceiling x channels: {:.0f} GB/s per GPU), not "
          "by the network",
          t.level_names[0], cap / 1e9);
    } else {
      why += fmt::format("; limited by {}, not by the network", t.level_names[chosen.bottleneck_level]);
    }
  }
  // NCCL's own ceiling on a ring's LL or LL128 bus bandwidth (its tuner's llMaxBw, and
  // LL128's channels x per-channel ceiling; docs/model/collectives.md) can bind below what the
  // links carry: say so when it set the chosen line's rate (the cap for the full channel set,
  // shared by concurrent collectives; a narrowed small-message LL line runs below it and is
  // explained by its channels, not the ceiling).
  if (chosen.algorithm == CollectiveAlgorithm::ring && chosen.bottleneck_level == 0 &&
      (chosen.protocol == Protocol::ll || chosen.protocol == Protocol::ll128)) {
    const int scale = r.domains <= 1 ? 0 : r.domains == 2 ? 1 : 2;
    const double cap = t.ring_cap_bytes_per_s[scale][static_cast<int>(chosen.protocol)] / r.concurrent;
    if (cap > 0 && chosen.level_bw_bytes_per_s[0] >= cap * (1 - 1e-9)) {
      why +=
          fmt::format("; {} runs at NCCL's ceiling for it ({}: {:.0f} GB/s per GPU), below the links' rate",
                      protocol_name(chosen.protocol),
                      chosen.protocol == Protocol::ll ? "llMaxBw" : "channels x per-channel LL128 ceiling", cap / 1e9);
    }
  }
  return why;
}

}  // namespace gpuplan
