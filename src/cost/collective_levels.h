// Internal to src/cost/collective*.cpp: where a group sits in the hierarchy, and how many bytes
// each GPU pushes through each level for a given algorithm (collective_hierarchical.cpp).
#pragma once

#include <algorithm>
#include <array>

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
bool group_shape(const CollectiveRequest& request, const CollectiveTopology& topology, GroupShape& shape);

// Bytes each GPU sends through each level, and whether that level's traffic is reduced in the
// network (then it runs at the level's reduction bandwidth).
struct LevelTraffic {
  std::array<double, kMaxCollectiveLevels> bytes{};
  std::array<bool, kMaxCollectiveLevels> in_network{};
};

// NCCL sends each channel's inter-domain traffic through one NIC: when the group's NICs in a
// domain (g x NICs per GPU) outnumber `channels`, only `channels` of them carry it and each
// carries g x NICs per GPU / channels times its even share. 1 when channels is 0 (every NIC).
double nic_crowding(const GroupShape& shape, const CollectiveTopology& topology, int channels);

// Per-level traffic of `algorithm` (ring, tree, nvls or direct) for `op` on `shape`.
LevelTraffic level_traffic(CollectiveOp op, CollectiveAlgorithm algorithm, double bytes, const GroupShape& shape,
                           const CollectiveTopology& topology);

// Achieved bandwidth per GPU at `level` for this group, before protocol and sharing factors
// (mesh domains: only the links to the group's own peers count). Inline: called per level of
// every line costed.
inline double level_bandwidth(const CollectiveTopology& topology, const GroupShape& shape, int level,
                              bool in_network) {
  const CollectiveLevel& l = topology.levels[level];
  double bw = in_network ? l.reduction_bw_bytes_per_s : l.bw_bytes_per_s;
  // A point-to-point mesh gives a GPU one link per peer: a group of g uses g-1 of them.
  if (level == 0 && topology.scaleup == ScaleupKind::mesh && topology.mesh_peer_bw > 0) {
    bw = std::min(bw, (shape.per_domain - 1) * topology.mesh_peer_bw);
  }
  return bw;
}

}  // namespace gpuplan::collective_detail
