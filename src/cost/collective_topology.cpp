// Builds the per-system struct the collective model reads: per-GPU line and achieved bandwidth
// at each level (the scale-up domain, then the NICs or each fabric level), per-hop latencies and
// the protocol constants, all looked up once so estimate_collective never touches a string.
#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "core/error.h"
#include "core/strings.h"
#include "cost/collective.h"

namespace gpuplan {
namespace {

// The boost clock p2p_us is quoted at: Hopper's, NVIDIA H100 SXM's 1,980 MHz max boost (its prior
// is an 8 x H20 measurement, a Hopper part whose clock the catalog does not give: taken as H100's).
constexpr double kNcclP2pReferenceClockHz = 1.98e9;

ScaleupKind scaleup_kind(const System& s) {
  if (s.scaleup_topology == "mesh") return ScaleupKind::mesh;
  if (s.scaleup_topology == "pcie") return ScaleupKind::pcie;
  if (s.scaleup_topology == "none") return ScaleupKind::none;
  return ScaleupKind::switched;  // switched; a torus is costed at its per-chip rate (comparison rows only)
}

const CollectiveLinkParams& link_params(const Catalog& catalog, const CollectiveParams& params,
                                        const std::string& link_id, const std::string& context) {
  const Link* link = catalog.find_link(link_id);
  const CollectiveLinkParams* p = params.find_link(link_id, link ? link->family : std::string_view{});
  if (!p) {
    throw Error(fmt::format("collective parameters '{}' have no entry for link '{}' ({}) and no link = \"default\"",
                            params.id, link_id, context));
  }
  return *p;
}

void set_hops(CollectiveLevel& level, const CollectiveLinkParams& p) {
  level.ring_hop_s = p.ring_hop_latency_s;
  level.tree_hop_s = p.tree_hop_latency_s;
}

}  // namespace

const CollectiveParams& default_collective_params(const Catalog& catalog) {
  for (const auto& p : catalog.collective_params) {
    if (normalize_name(p.id) == "nccl") return p;
  }
  throw Error(
      "the catalog has no collective parameters with id 'nccl' (data/fitted/collectives/nccl.toml); "
      "add one with --catalog, or drop --no-builtin");
}

CollectiveTopology make_collective_topology(const Catalog& catalog, const System& system, const Fabric* fabric,
                                            const CollectiveParams& params) {
  CollectiveTopology t;
  t.system_id = system.id;
  t.params_id = params.id;
  if (system.gpus < 1) throw Error(fmt::format("system '{}' has no GPUs", system.id));
  t.domain_gpus = system.gpus;
  t.scaleup = scaleup_kind(system);

  // Level 0: the scale-up domain, per GPU.
  CollectiveLevel& up = t.levels[0];
  up.gpus_per_unit = system.gpus;
  up.domains_per_unit = 1;
  up.line_bw_bytes_per_s = system.scaleup_bw_uni_bytes_per_s;
  if (system.gpus > 1 && up.line_bw_bytes_per_s <= 0) {
    throw Error(fmt::format("system '{}' has {} GPUs but no scale-up bandwidth", system.id, system.gpus));
  }
  const CollectiveLinkParams& up_params =
      link_params(catalog, params, system.scaleup_link, fmt::format("scale-up link of system '{}'", system.id));
  up.bw_bytes_per_s = up.line_bw_bytes_per_s * up_params.bw_efficiency;
  if (system.in_network_reduction) {
    up.reduction_bw_bytes_per_s =
        up.line_bw_bytes_per_s * up_params.reduction_bw_efficiency.value_or(up_params.bw_efficiency);
    if (up_params.nvls_busbw_efficiency) {
      up.reduction_busbw_bytes_per_s = up.line_bw_bytes_per_s * *up_params.nvls_busbw_efficiency;
    }
  }
  set_hops(up, up_params);
  if (t.scaleup == ScaleupKind::mesh) {
    t.mesh_peer_line_bw = system.scaleup_per_peer_bw_uni_bytes_per_s > 0
                              ? system.scaleup_per_peer_bw_uni_bytes_per_s
                              : up.line_bw_bytes_per_s / std::max(1, system.gpus - 1);
    t.mesh_peer_bw = t.mesh_peer_line_bw * up_params.bw_efficiency;
  }
  t.level_names[0] =
      system.scaleup_link.empty() ? std::string("scale-up") : fmt::format("scale-up ({})", system.scaleup_link);

  // Levels 1..: the NICs, alone or under each fabric level.
  const double nic_line = system.scaleout_bw_uni_bytes_per_s_per_gpu();
  if (fabric) {
    t.fabric_id = fabric->id;
    if (normalize_name(fabric->system) != normalize_name(system.id) && catalog.find_system(fabric->system) != &system) {
      throw Error(
          fmt::format("fabric '{}' is built from system '{}', not '{}'", fabric->id, fabric->system, system.id));
    }
    if (fabric->levels.empty()) throw Error(fmt::format("fabric '{}' has no levels", fabric->id));
    if (static_cast<int>(fabric->levels.size()) + 1 > kMaxCollectiveLevels) {
      throw Error(fmt::format("fabric '{}' has {} levels; the collective model handles at most {}", fabric->id,
                              fabric->levels.size(), kMaxCollectiveLevels - 1));
    }
  }
  if (nic_line <= 0) {
    if (fabric)
      throw Error(fmt::format("system '{}' has no scale-out NICs to reach fabric '{}'", system.id, fabric->id));
    t.level_count = 1;
  } else {
    const Nic* nic = catalog.find_nic(system.nic);
    const std::string nic_link = nic ? nic->link : std::string();
    const CollectiveLinkParams& link_net =
        link_params(catalog, params, nic_link, fmt::format("NIC '{}' of system '{}'", system.nic, system.id));
    // The transport the NICs run (its hops, delivered rate, protocols and fixed cost) replaces
    // the NIC link family's figures where the parameter set has one.
    CollectiveLinkParams net = link_net;
    const Link* nic_link_data = catalog.find_link(nic_link);
    const CollectiveTransportParams* transport = nullptr;
    if (!system.scaleout_transport.empty()) {
      transport = params.find_transport(system.scaleout_transport);
      if (!transport && !params.transports.empty()) {
        std::string known;
        for (const auto& tp : params.transports) {
          if (!known.empty()) known += ", ";
          known += tp.id;
        }
        throw Error(
            fmt::format("system '{}' names scale-out transport '{}', which collective parameters '{}' do "
                        "not have; use one of: {}",
                        system.id, system.scaleout_transport, params.id, known));
      }
    } else {
      transport = params.transport_for_nic(system.nic, nic_link_data ? nic_link_data->family : std::string_view{});
    }
    if (transport) {
      net.bw_efficiency = transport->bw_efficiency;
      net.ring_hop_latency_s = transport->ring_hop_latency_s;
      net.tree_hop_latency_s = transport->tree_hop_latency_s;
      t.transport = transport->id;
      t.transport_name = transport->name;
      t.transport_family = transport->family;
      t.net_protocols = transport->net_protocols;
      t.net_base_s = transport->base_latency_s;
      t.net_simple_step_bytes = transport->simple_step_bytes;
      // The transport's per-message costs (cost/collective_net_message.h): the flush only on a
      // generation NCCL flushes for; one rail's rate from the NIC's rails behind one NET device.
      if (up_params.net_receive_flush) t.net_flush_s = transport->flush_latency_s;
      t.net_eager_max_bytes = transport->eager_max_bytes;
      t.net_rendezvous_s = transport->rendezvous_latency_s;
      const double device = system.nic_bw_uni_bytes_per_s * transport->bw_efficiency;  // one NET device, delivered
      if (transport->stripe_min_bytes > 0 && nic && nic->rails > 1 && device > 0) {
        t.net_stripe_min_bytes = transport->stripe_min_bytes;
        t.net_rail_s_per_byte = (nic->rails - 1) / device;  // rails / device - 1 / device
      }
      t.net_message_channels = params.tree_channels;
      t.net_message_costs = t.net_flush_s > 0 || t.net_eager_max_bytes > 0 || t.net_stripe_min_bytes > 0;
      if (!transport->net_algorithms.empty()) {
        t.net_algorithms.fill(false);
        for (const std::string& name : transport->net_algorithms) {
          if (const auto a = parse_algorithm(name)) t.net_algorithms[static_cast<int>(*a)] = true;
        }
        // NCCL_ALGO picks among collective algorithms; AllToAll and SendRecv are point-to-point.
        t.net_algorithms[static_cast<int>(CollectiveAlgorithm::direct)] = true;
      }
    }
    const double reduction_eff = net.reduction_bw_efficiency.value_or(net.bw_efficiency);
    if (!fabric) {
      CollectiveLevel& l = t.levels[1];
      l.gpus_per_unit = INT_MAX;
      l.domains_per_unit = INT_MAX;  // one flat network: every domain one hop away
      l.line_bw_bytes_per_s = nic_line;
      l.bw_bytes_per_s = nic_line * net.bw_efficiency;
      set_hops(l, net);
      t.level_names[1] = fmt::format("network ({})", system.nic.empty() ? std::string("NIC") : system.nic);
      t.level_count = 2;
    } else {
      t.rail_optimized = fabric->rail_optimized;
      double uplink_share = nic_line;  // per-GPU bandwidth the level below can send upwards
      int idx = 1;
      for (const FabricLevel& fl : fabric->levels) {
        CollectiveLevel& l = t.levels[idx];
        l.gpus_per_unit = fl.gpus;
        // A rail-optimised leaf joins NIC i of every node of the unit (rail-aligned traffic
        // stays under it); otherwise a leaf switch holds whole domains, gpus / switches of them.
        int gpus_reached = fl.gpus;
        if (idx == 1 && !fabric->rail_optimized && fl.switches > 0) gpus_reached = fl.gpus / fl.switches;
        l.domains_per_unit = std::max(1, gpus_reached / system.gpus);
        // Fair share per GPU when every GPU talks at once: W_i / GPUs, and never more than the
        // level below can send up (its share / oversubscription) or than the NIC carries.
        const double share = std::min(fl.bw_per_gpu_uni_bytes_per_s(), uplink_share);
        l.line_bw_bytes_per_s = share;
        l.bw_bytes_per_s = share * net.bw_efficiency;
        if (fabric->in_network_reduction) l.reduction_bw_bytes_per_s = share * reduction_eff;
        set_hops(l, net);
        t.level_names[idx] = fl.name;
        uplink_share = share / fl.oversubscription;
        ++idx;
      }
      t.level_count = idx;
      t.max_domains = std::max(1, fabric->levels.back().gpus / system.gpus);
    }
  }

  // The library's fixed cost: the scale-up link's own (RCCL on xGMI) where the data gives one.
  t.ring_base_s = up_params.ring_base_latency_s.value_or(params.ring_base_latency_s);
  t.tree_base_s = up_params.tree_base_latency_s.value_or(params.tree_base_latency_s);
  t.library = up_params.library.empty() ? params.id : up_params.library;
  t.one_shot_allreduce = up_params.one_shot_allreduce && t.scaleup == ScaleupKind::mesh;
  t.one_shot_max_bytes = up_params.one_shot_max_bytes;
  // The library's protocol ranges across nodes for this system's GPU architecture (the first
  // entry whose `architecture` starts the GPU's; docs/model/collectives.md).
  if (const Gpu* gpu = up_params.net_protocol_ranges.empty() ? nullptr : catalog.find_gpu(system.gpu)) {
    for (const NetProtocolRange& r : up_params.net_protocol_ranges) {
      if (!gpu->architecture.starts_with(r.architecture)) continue;
      t.net_protocol_ranges = true;
      t.net_ll_min_bytes = r.ll_min_bytes;
      t.net_ll_max_bytes = r.ll_max_bytes;
      t.net_ll128_min_bytes = r.ll128_min_bytes;
      t.net_ll128_max_bytes = r.ll128_max_bytes;
      t.net_protocol_ranges_id = fmt::format("{} ({})", r.architecture, r.release);
      break;
    }
  }
  t.protocol_bw_fraction = {params.ll_bw_fraction, params.ll128_bw_fraction, 1.0};
  t.tree_protocol_bw_fraction = params.tree_bw_fraction;
  t.simple_step_bytes = params.simple_step_bytes;
  t.net_ring_simple_factor = params.net_ring_simple_latency_factor;
  t.nvls_latency_s = params.nvls_latency_s;
  t.nvls_hop_s = params.nvls_hop_latency_s;
  t.nics_per_gpu = system.gpus > 0 && system.nics > 0 ? static_cast<double>(system.nics) / system.gpus : 1.0;
  t.net_channels = params.net_channels;
  t.nvls_tree_heads = params.nvls_tree_heads;
  t.nvls_chunk_bytes = params.nvls_chunk_bytes;
  t.nvls_tree_max_chunk_bytes = params.nvls_tree_max_chunk_bytes;
  t.nvls_tree_max_chunk_min_domains = params.nvls_tree_max_chunk_min_domains;
  t.nvls_channels = up_params.nvls_channels;
  t.net_step_overhead_s = params.net_step_overhead_s;
  t.nvls_min_gpus = params.nvls_min_gpus;
  t.p2p_latency_s = params.p2p_latency_s;
  // NCCL's grouped send/receive fixed cost is the GPU's own work (the kernel's per-peer
  // connection setup and FIFO handshakes, progressed by the CTAs: no proxy on NVLink), so it
  // runs in SM cycles: p2p_us is at Hopper's 1,980 MHz boost clock (its prior measured on 8 x H20,
  // a Hopper part) and scales with reference / this GPU's boost clock (A100 1,410 MHz: x 1.404;
  // B200 1,965: x 1.008; GB200 2,062: x 0.960). AIConfigurator's 512 B - 32 KiB AllToAll floors,
  // 8 x A100 14.9 us against 8 x B200 11.0 and 4 x GB200 10.8 (docs/model/collectives.md,
  // "The point-to-point fixed cost in SM cycles"). NCCL only: RCCL's kernels are not costed so.
  if (up_params.library.empty()) {
    const Gpu* gpu = catalog.find_gpu(system.gpu);
    if (gpu && gpu->boost_clock_hz && *gpu->boost_clock_hz > 0) {
      t.p2p_latency_s *= kNcclP2pReferenceClockHz / *gpu->boost_clock_hz;
    }
  }
  // A GPU generation whose collective kernels cost more per launch and per step than NCCL's
  // figures (NVLink 5: measured B200 vs Hopper AllReduce, docs/model/collectives.md): the
  // library's base and the scale-up hops scale together. Not scaled by it: the grouped
  // send/receive cost (it runs at the GPU's clock, above: AIConfigurator's B200 AllToAll floor
  // is below A100's), NVLS's
  // fixed cost (fitted on each generation's rows directly) and the network hops (the transport's).
  t.fixed_cost_ratio = up_params.fixed_cost_ratio;
  if (t.fixed_cost_ratio != 1.0) {
    for (int p = 0; p < kProtocolCount; ++p) {
      t.ring_base_s[p] *= t.fixed_cost_ratio;
      t.tree_base_s[p] *= t.fixed_cost_ratio;
      up.ring_hop_s[p] *= t.fixed_cost_ratio;
      up.tree_hop_s[p] *= t.fixed_cost_ratio;
    }
  }
  t.alltoall_bw_fraction = params.alltoall_bw_fraction;
  // NCCL's send/receive kernel copies a peer's part on one CTA per channel: SM work, so its rate
  // per channel is bytes per cycle at the GPU's clock (docs/model/collectives.md, "NCCL's
  // point-to-point channel rate"). The parameter set's library (NCCL) only: a scale-up link
  // driven by another (RCCL on xGMI) has its own channels and kernels.
  if (params.p2p_channel_bytes_per_clock > 0 && up_params.library.empty()) {
    const Gpu* gpu = catalog.find_gpu(system.gpu);
    if (gpu && gpu->boost_clock_hz && *gpu->boost_clock_hz > 0) {
      t.p2p_channel_bw_bytes_per_s = params.p2p_channel_bytes_per_clock * *gpu->boost_clock_hz;
    }
  }
  t.ll_channels = params.ll_channels;
  if (params.tree_channels > 0) {
    for (int scale = 0; scale < 3; ++scale) {
      for (int p = 0; p < kProtocolCount; ++p) {
        t.tree_cap_bytes_per_s[scale][p] = params.tree_channels * up_params.tree_channel_max_bw_bytes_per_s[scale][p];
      }
    }
  }
  for (int scale = 0; scale < 3; ++scale) {
    t.ring_cap_bytes_per_s[scale][static_cast<int>(Protocol::ll)] = up_params.ll_max_bw_bytes_per_s[scale];
    t.ring_cap_bytes_per_s[scale][static_cast<int>(Protocol::ll128)] =
        params.ll_channels * up_params.ring_ll128_channel_max_bw_bytes_per_s[scale];
  }
  t.ll_channel_fill_bytes_per_rank = params.ll_channel_fill_bytes_per_rank;
  return t;
}

}  // namespace gpuplan
