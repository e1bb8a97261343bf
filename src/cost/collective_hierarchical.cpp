// The hierarchical part of the collective model: which levels of the topology a group spans,
// how many bytes each GPU pushes through each level, and the pipelined bound
//   T = max_i(bytes_i / bw_i)
// in which the slowest level sets the pace (seed 004, shared/seeds/004_97caa601c296245a.txt
// lines 304-314: T = max_i(bytes * N_i / W_i), W_i the aggregate bandwidth of one level-i unit
// and N_i its subdomains). Per GPU, W_i / N_i is the share of one child and a child of m ranks
// moves bytes / m per rank, so bytes_i / bw_i per GPU is the seed's term; the seed's figure is
// the in-network-reduction case (c_i = 1 below), the others change only c_i.
#include <algorithm>
#include <climits>
#include <cmath>

#include "cost/collective_levels.h"

namespace gpuplan::collective_detail {

bool group_shape(const CollectiveRequest& request, const CollectiveTopology& topology, GroupShape& shape) {
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

LevelTraffic level_traffic(CollectiveOp op, CollectiveAlgorithm algorithm, double bytes, const GroupShape& shape,
                           const CollectiveTopology& topology) {
  LevelTraffic t;
  const double n = shape.ranks;
  const double g = shape.per_domain;
  const int top = shape.top;
  switch (algorithm) {
    case CollectiveAlgorithm::ring: {
      // A ring passes the whole wire volume through every GPU (level 0) and crosses each
      // child's boundary once per channel; channels leave a child through all its ranks' NICs.
      const double wire = bytes * busbw_factor(op, shape.ranks);
      if (shape.per_domain > 1) t.bytes[0] = wire;
      for (int i = 1; i <= top; ++i) t.bytes[i] = wire / shape.ranks_per_child[i];
      break;
    }
    case CollectiveAlgorithm::tree: {
      // NCCL's tree: a chain inside the domain (each GPU forwards the buffer up, then down) and a
      // double binary tree across domains (each child sends at most 2x the buffer).
      if (shape.per_domain > 1) t.bytes[0] = 2 * bytes;
      for (int i = 1; i <= top; ++i) t.bytes[i] = 2 * bytes / shape.ranks_per_child[i];
      break;
    }
    case CollectiveAlgorithm::nvls: {
      // In-network reduction. Inside the domain the switch reduce-scatters and all-gathers (each
      // GPU sends the buffer once and receives it once: bytes / egress, seed 004 "In network
      // reduction"); a domain without NVLS does that by a ring (NCCL CollNet). Then one shard
      // per rank across domains: reduced by the switches when the fabric can (c = 1), else a
      // ring among the children (c = 2(N-1)/N) that also crosses every level below.
      if (shape.per_domain > 1) {
        t.in_network[0] = topology.levels[0].reduction_bw_bytes_per_s > 0;
        t.bytes[0] = t.in_network[0] ? bytes : 2 * (g - 1) / g * bytes;
      }
      for (int i = 1; i <= top; ++i) {
        const double shard = bytes / shape.ranks_per_child[i];
        if (topology.levels[i].reduction_bw_bytes_per_s > 0) {
          t.bytes[i] += shard;
          t.in_network[i] = true;
        } else {
          const double children = shape.children[i];
          const double ring = 2 * (children - 1) / children * shard;
          for (int j = 1; j <= i; ++j) t.bytes[j] += ring;
        }
      }
      break;
    }
    case CollectiveAlgorithm::direct: {
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

double level_bandwidth(const CollectiveTopology& topology, const GroupShape& shape, int level, bool in_network) {
  const CollectiveLevel& l = topology.levels[level];
  double bw = in_network ? l.reduction_bw_bytes_per_s : l.bw_bytes_per_s;
  // A point-to-point mesh gives a GPU one link per peer: a group of g uses g-1 of them.
  if (level == 0 && topology.scaleup == ScaleupKind::mesh && topology.mesh_peer_bw > 0) {
    bw = std::min(bw, (shape.per_domain - 1) * topology.mesh_peer_bw);
  }
  return bw;
}

double transfer_time(const LevelTraffic& traffic, const GroupShape& shape, const CollectiveTopology& topology,
                     double bw_scale, double level0_scale, CollectiveEstimate& e) {
  double slowest = 0;
  e.bottleneck_level = 0;
  for (int i = 0; i <= shape.top; ++i) {
    e.level_bytes[i] = traffic.bytes[i];
    e.level_time_s[i] = 0;
    if (traffic.bytes[i] <= 0) continue;
    const double bw =
        level_bandwidth(topology, shape, i, traffic.in_network[i]) * bw_scale * (i == 0 ? level0_scale : 1);
    e.level_bw_bytes_per_s[i] = bw;
    e.level_time_s[i] = bw > 0 ? traffic.bytes[i] / bw : HUGE_VAL;
    if (e.level_time_s[i] > slowest) {
      slowest = e.level_time_s[i];
      e.bottleneck_level = i;
    }
  }
  return slowest;
}

}  // namespace gpuplan::collective_detail
