// Internal to src/cost/collective*.cpp: where a group sits in the hierarchy, and how many bytes
// each GPU pushes through each level for a given algorithm. Inline (always): the collective
// choice (collective_protocols.cpp) costs each algorithm by code specialised to it, so the
// switch on the algorithm folds away; out of line these were ~600 instructions of a cold plan.
// The hierarchical part of the collective model: which levels of the topology a group spans,
// how many bytes each GPU pushes through each level, and the pipelined bound
//   T = max_i(bytes_i / bw_i)
// in which the slowest level sets the pace (seed 004, shared/seeds/004_97caa601c296245a.txt
// lines 304-314: T = max_i(bytes * N_i / W_i), W_i the aggregate bandwidth of one level-i unit
// and N_i its subdomains). Per GPU, W_i / N_i is the share of one child and a child of m ranks
// moves bytes / m per rank, so bytes_i / bw_i per GPU is the seed's term; the seed's figure is
// the in-network-reduction case (c_i = 1 below), the others change only c_i.
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>

#include "cost/collective.h"

namespace gpuplan::collective_detail {

// The group as the levels see it. Level 0's children are GPUs; level i's children are the
// level-(i-1) units the group touches inside one level-i unit.
struct GroupShape {
  int ranks = 1;       // n
  int per_domain = 1;  // g
  int domains = 1;     // M
  int top = 0;         // outermost level that carries traffic (0: the group is inside one domain)
  // Set whole by group_shape() (not cleared first: every collective estimate makes one).
  std::array<int, kMaxCollectiveLevels> children;            // N_i
  std::array<double, kMaxCollectiveLevels> ranks_per_child;  // m_{i-1}: group ranks in one child
};

// False when the group does not fit the topology (too many GPUs per domain, more domains than
// the fabric holds, non-positive counts).
[[gnu::always_inline]] inline bool group_shape(const CollectiveRequest& request, const CollectiveTopology& topology,
                                               GroupShape& shape) {
  const int g = request.gpus_per_domain;
  const int m = request.domains;
  const int stride = request.domain_stride;
  if (g < 1 || m < 1 || stride < 1 || g > topology.domain_gpus) return false;
  if (m > 1 && topology.level_count < 2) return false;
  if (topology.max_domains > 0 && (static_cast<long long>(m) - 1) * stride + 1 > topology.max_domains) return false;

  shape.ranks = g * m;
  shape.per_domain = g;
  shape.domains = m;
  shape.top = 0;
  shape.children.fill(1);
  shape.ranks_per_child.fill(static_cast<double>(shape.ranks));
  shape.children[0] = g;
  shape.ranks_per_child[0] = 1;
  // Inside one domain every level above has one child holding the whole group: the values
  // just filled (the loop below would leave them as they are).
  if (m == 1) return true;
  long long units_below = m;  // level-(i-1) units the group touches
  for (int level = 1; level < topology.level_count; ++level) {
    // Domains of the group inside one unit of this level: packed when the stride is smaller
    // than the unit, one per unit otherwise.
    const long long per_unit_span = topology.levels[level].domains_per_unit;
    const long long per_unit = stride >= per_unit_span ? 1 : std::max(1LL, per_unit_span / stride);
    const long long units = (m + per_unit - 1) / per_unit;
    shape.children[level] = static_cast<int>((units_below + units - 1) / units);
    shape.ranks_per_child[level] = static_cast<double>(shape.ranks) / static_cast<double>(units_below);
    if (shape.children[level] > 1) shape.top = level;
    units_below = units;
  }
  // More than one unit of the outermost level: the fabric does not hold the group.
  return units_below == 1 || topology.level_count == 1;
}

// Bytes each GPU sends through each level, and whether that level's traffic is reduced in the
// network (then it runs at the level's reduction bandwidth).
struct LevelTraffic {
  std::array<double, kMaxCollectiveLevels> bytes{};
  std::array<bool, kMaxCollectiveLevels> in_network{};
};

// NCCL sends each channel's inter-domain traffic through one NIC: when the group's NICs in a
// domain (g x NICs per GPU) outnumber `channels`, only `channels` of them carry it and each
// carries g x NICs per GPU / channels times its even share. 1 when channels is 0 (every NIC).
[[gnu::always_inline]] inline double nic_crowding(const GroupShape& shape, const CollectiveTopology& topology,
                                                  int channels) {
  if (channels <= 0) return 1.0;
  const double nics = shape.per_domain * topology.nics_per_gpu;
  return nics > channels ? nics / channels : 1.0;
}

// Per-level traffic of `algorithm` (ring, tree, nvls or direct) for `op` on `shape`.
[[gnu::always_inline]] inline LevelTraffic level_traffic(CollectiveOp op, CollectiveAlgorithm algorithm, double bytes,
                                                         const GroupShape& shape, const CollectiveTopology& topology) {
  LevelTraffic t;
  const double n = shape.ranks;
  const double g = shape.per_domain;
  const int top = shape.top;
  switch (algorithm) {
    case CollectiveAlgorithm::ring: {
      // A ring passes the wire volume through every GPU and crosses each child's boundary once
      // per channel; channels leave a child through all its ranks' NICs. Of a ring's n edges M
      // cross domains (NCCL's multi-node ring: A0..A7 -> B0..B7 -> A0), and the GPU at each
      // crossing sends through its NIC (over PCIe), not over the scale-up links; NCCL rotates
      // that role across channels, so each GPU sends (g - 1) / g of its wire volume on level 0
      // (2 x 8 MI300X over RoCE: 7/8 of the ring at 336 GB/s is below the NICs' 360 GB/s, which
      // bind, as the 2-16 GiB rows of ROCm/rccl#2078 measure; docs/model/collectives.md).
      const double wire = bytes * busbw_factor(op, shape.ranks);
      if (shape.per_domain > 1) t.bytes[0] = shape.domains > 1 ? wire * (g - 1) / g : wire;
      const double crowd = nic_crowding(shape, topology, topology.net_channels);
      for (int i = 1; i <= top; ++i) t.bytes[i] = wire / shape.ranks_per_child[i] * crowd;
      break;
    }
    case CollectiveAlgorithm::tree: {
      // NCCL's tree: a chain inside the domain (each GPU forwards the buffer up, then down) and a
      // double binary tree across the M domains, each tree carrying half the buffer. Each tree
      // has M - 1 edges and every edge carries its half once up (reduce) and once down
      // (broadcast): 2 trees x (M - 1) edges x bytes / 2 x 2 = 2 (M - 1) x bytes sent in all.
      // NCCL mirrors or shifts the second tree and spreads the roles over its channels, so each
      // domain sends 2 (M - 1) / M x the buffer through its NICs: 1 between two domains (each
      // tree one root and one leaf), 4/3 for three, towards 2 for many. NVIDIA/nccl#1801's
      // forced Tree over three GB200 partitions (234 / 486 GB/s busbw at 16 GiB) is only
      // possible with c <= 1.36 on their 400 Gb/s NICs.
      if (shape.per_domain > 1) t.bytes[0] = 2 * bytes;
      const double crowd = nic_crowding(shape, topology, topology.net_channels);
      const double across = 2.0 * (shape.domains - 1) / shape.domains;
      for (int i = 1; i <= top; ++i) t.bytes[i] = across * bytes / shape.ranks_per_child[i] * crowd;
      break;
    }
    case CollectiveAlgorithm::nvls: {
      // In-network reduction. Inside the domain the switch reduce-scatters and all-gathers (each
      // GPU sends the buffer once and receives it once: bytes / egress, seed 004 "In network
      // reduction"); NCCL's tuner costs that as a bus bandwidth that does not depend on the
      // group size (busBw = 2 x nvlsEfficiency x bwIntra, algBw = busBw x n / nSteps), which is
      // what 8- and 72-GPU NVLS runs measure (838 and 835-839 GB/s busbw, shared/data
      // collectives.csv): past 8 GPUs the bus rate binds, below it the egress. A domain
      // without NVLS does its part by a ring (NCCL CollNet).
      if (shape.per_domain > 1) {
        const CollectiveLevel& up = topology.levels[0];
        t.in_network[0] = up.reduction_bw_bytes_per_s > 0;
        if (!t.in_network[0]) {
          t.bytes[0] = 2 * (g - 1) / g * bytes;
        } else {
          // Two bounds: the egress (bytes at the reduction rate) and NCCL's bus rate (2(g-1)/g x
          // bytes at the NVLS busbw); they meet at 8 GPUs, where both were measured.
          const double bus = up.reduction_busbw_bytes_per_s > 0
                                 ? 2 * (g - 1) / g * up.reduction_bw_bytes_per_s / up.reduction_busbw_bytes_per_s
                                 : 0.0;
          t.bytes[0] = std::max(1.0, bus) * bytes;
        }
      }
      // Across domains one shard per "head": NCCL sends the domain's reduced data through one
      // NIC per NVLS channel (at most nvls_tree_heads of them), so a 72-NIC rack with 16 heads
      // pushes its shards through 16 NICs. The fabric's switches reduce them when they can
      // (SHARP: c = 1); else NVLS_TREE runs a tree among the N children: with two, one exchange
      // each way; with more, NCCL's tuner (src/graph/tuning.cc) halves the inter-node bandwidth
      // (bw = min(bwIntra, nNodes <= 2 ? bwInter : bwInter / 2)) and converts bus to algorithm
      // bandwidth by nNodes / (2 (nNodes - 1)), so each head carries c = 2 x 2(N-1)/N shards
      // (3 racks 2.67, 20 racks 3.8), through every level below as well.
      const double crowd =
          nic_crowding(shape, topology, topology.nvls() ? topology.nvls_tree_heads : topology.net_channels);
      for (int i = 1; i <= top; ++i) {
        const double shard = bytes / shape.ranks_per_child[i] * crowd;
        if (topology.levels[i].reduction_bw_bytes_per_s > 0) {
          t.bytes[i] += shard;
          t.in_network[i] = true;
        } else {
          const double n_children = shape.children[i];
          const double tree = (n_children <= 2 ? 1.0 : 2.0 * 2.0 * (n_children - 1) / n_children) * shard;
          for (int j = 1; j <= i; ++j) t.bytes[j] += tree;
        }
      }
      break;
    }
    case CollectiveAlgorithm::direct: {
      if (op == CollectiveOp::all_reduce) {
        // One-shot on a full mesh (single domain): each GPU pulls the whole buffer from each of
        // its g - 1 peers, one link per peer, so (g - 1) x bytes at (g - 1) x the per-peer rate.
        t.bytes[0] = (g - 1) * bytes;
        break;
      }
      if (op == CollectiveOp::send_recv) {
        if (shape.per_domain > 1) t.bytes[0] = bytes;
        for (int i = 1; i <= top; ++i) t.bytes[i] = bytes;
        break;
      }
      // AllToAll: 1/n of the buffer to every rank. Peers in the same domain over the scale-up
      // links; the rest leaves through this GPU's NIC, and through level i whatever goes to
      // ranks outside this GPU's level-(i-1) unit. On a rail-optimised fabric NCCL's PXN first
      // moves data bound for another rail over the scale-up links to the GPU on that rail.
      t.bytes[0] = (g - 1) / n * bytes;
      if (topology.rail_optimized && shape.domains > 1) t.bytes[0] += (n - g) / n * bytes * (g - 1) / g;
      for (int i = 1; i <= top; ++i) t.bytes[i] = (n - shape.ranks_per_child[i]) / n * bytes;
      break;
    }
    case CollectiveAlgorithm::auto_:
      break;
  }
  return t;
}

// Achieved bandwidth per GPU at `level` for this group, before protocol and sharing factors
// (mesh domains: only the links to the group's own peers count). Inline: called per level of
// every line costed.
inline double level_bandwidth(const CollectiveTopology& topology, const GroupShape& shape, int level, bool in_network) {
  const CollectiveLevel& l = topology.levels[level];
  double bw = in_network ? l.reduction_bw_bytes_per_s : l.bw_bytes_per_s;
  // A point-to-point mesh gives a GPU one link per peer: a group of g uses g-1 of them.
  if (level == 0 && topology.scaleup == ScaleupKind::mesh && topology.mesh_peer_bw > 0) {
    bw = std::min(bw, (shape.per_domain - 1) * topology.mesh_peer_bw);
  }
  return bw;
}

}  // namespace gpuplan::collective_detail
