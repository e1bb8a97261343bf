#pragma once
// Simple's pipeline fill across domains (docs/model/collectives.md, "Simple's fill across
// domains"; issue 32, fifteenth session).
//
// A chunk set (one Simple chunk on every channel) crosses the network between two domains
// through all the domain's NICs at once: NCCL's graph gives every channel its own NIC in and
// out (src/graph/search.cc at v2.29.2-1: graph->inter[2c], inter[2c + 1], the search walking
// the NICs so the channels spread over them), so the chunk set crosses at g x one GPU's network
// rate, not at one GPU's, and at 1/crowd of that where the domain has more NICs than channels
// (only `channels` of them carry it: collective_levels.h nic_crowding).
//
// Tree on Simple runs one fixed chunk per channel, NCCL_BUFFSIZE / NCCL_STEPS (512 KiB), for
// every message size: NCCL's chunking shrinks the chunk of small messages for Tree/LL128, NVLS,
// NVLS_TREE and CollNet only (src/enqueue.cc calcCollChunking at v2.29.2-1: chunkSteps =
// sliceSteps = 1 off Ring/Simple, chunkSize = stepSize, no Tree/Simple branch). The chunk is
// stored and forwarded at each of the tree's 2(g-1) + 2 ceil(log2 M) hops, so until the pipe is
// full each hop costs one chunk set, min(step, bytes) (a buffer smaller than a step is one chunk
// per channel), at the rate of the link it crosses. Unlike the ring's fill it is not capped at
// the transfer: the tree's depth, not the buffer, sets it.

#include <algorithm>

namespace gpuplan {

// The rate one chunk set crosses the network between domains: g x the per-GPU network rate as
// the line runs it, / crowd (>= 1).
inline double chunk_set_net_rate(double net_bw_bytes_per_s, int gpus_per_domain, double crowd) {
  return net_bw_bytes_per_s * gpus_per_domain / std::max(1.0, crowd);
}

// Tree/Simple's fill: intra_hops x chunk / in_bw + inter_hops x chunk / chunk_set_net_rate, with
// chunk = min(step_bytes, bytes); rates per GPU as the line runs them.
inline double tree_simple_fill_s(double step_bytes, double bytes, int intra_hops, int inter_hops,
                                 double in_bw_bytes_per_s, double net_bw_bytes_per_s, int gpus_per_domain,
                                 double crowd) {
  const double chunk = std::min(step_bytes, bytes);
  double fill = 0;
  if (intra_hops > 0 && in_bw_bytes_per_s > 0) fill += intra_hops * chunk / in_bw_bytes_per_s;
  if (inter_hops > 0 && net_bw_bytes_per_s > 0 && gpus_per_domain > 0) {
    fill += inter_hops * chunk / chunk_set_net_rate(net_bw_bytes_per_s, gpus_per_domain, crowd);
  }
  return fill;
}

}  // namespace gpuplan
