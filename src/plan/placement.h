// Which parallel group spans which level of the topology. Ranks follow Megatron's order,
// tensor parallel fastest, then context, data and pipeline parallel; expert parallelism takes
// consecutive ranks of the tp × cp × dp block (expert TP = 1). A group of n ranks whose
// members are `stride` ranks apart fits in one scale-up domain when stride × n <= its GPUs.
#pragma once

#include <string>
#include <vector>

#include "cost/collective.h"
#include "plan/plan.h"

namespace gpuplan {

struct GroupPlacement {
  int size = 1;
  int stride = 1;           // ranks between consecutive members
  int gpus_per_domain = 1;  // members inside one scale-up domain
  int domains = 1;          // scale-up domains the group spans
  int domain_stride = 1;    // domains between consecutive ones the group uses

  bool crosses_domains() const { return domains > 1; }
};

struct Placement {
  GroupPlacement tp, cp, dp, pp, ep;
  // Gradients of the dense weights are reduced over dp × cp (context-parallel ranks hold the
  // same weights); ZeRO and FSDP shard over dp_shard × cp of them (Megatron's distributed
  // optimizer, torchtitan's FSDP mesh), and HSDP replicates the shards over the rest.
  GroupPlacement grad;
  GroupPlacement shard;
  GroupPlacement replica;
  GroupPlacement expert_dp;  // replicas of one expert: tp·cp·dp / ep ranks, ep apart
};

// Where a group of `size` ranks, `stride` apart, lands on domains of `domain_gpus` GPUs.
GroupPlacement place_group(int size, int stride, int domain_gpus);

Placement place_plan(const Plan& plan, int domain_gpus);

// A plan's groups as the answers list them (TP, CP, EP, DP gradients, PP, in that order), each
// with the topology level it reaches: the innermost whose unit holds the ranks it spans.
struct PlacedGroup {
  const char* name = "";  // "TP", "CP", "EP", "DP (gradients)", "PP"
  GroupPlacement group;
  std::string level;      // "-" for a group of one
};
std::vector<PlacedGroup> placed_groups(const Plan& plan, int domain_gpus, const CollectiveTopology& topology);

// A collective over `group` (bytes as nccl-tests counts them).
CollectiveRequest collective_request(CollectiveOp op, double bytes, const GroupPlacement& group);

}  // namespace gpuplan
