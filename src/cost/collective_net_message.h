// Internal to src/cost/collective*.cpp: a transport's costs per message across the network, paid
// once per inter-domain step of a line on top of NCCL's per-step latency (docs/model/collectives.md,
// "AWS EFA's per-message costs"). Three, each data on the [[transport]] entry, 0 = none:
//  - flush: NCCL flushes every Simple receive from the network on GPUs of compute capability
//    < 9.0 (NVIDIA/nccl v2.20.3-1 src/graph/paths.cc ncclTopoNeedFlush, src/transport/net.cc
//    iflush when p == NCCL_PROTO_SIMPLE && needFlush); aws-ofi-nccl does it as an fi_read of the
//    received buffer through the NIC (v1.8.1-aws src/nccl_ofi_sendrecv.c).
//  - rendezvous: a per-channel message above the eager limit waits for a handshake before its
//    data moves (libfabric v1.20.1 prov/efa: for CUDA buffers eager up to about one MTU, then a
//    read-based protocol; aws-ofi-nccl v1.8.1-aws src/nccl_ofi_rdma.c: eager only up to
//    OFI_NCCL_EAGER_MAX_SIZE = 8192 B, else the send waits for the receiver's control message).
//  - one rail: aws-ofi-nccl's threshold scheduler puts a message at or below
//    ROUND_ROBIN_THRESHOLD (256 KiB) on one rail of its NET device and stripes larger ones
//    (v1.8.1-aws include/nccl_ofi_scheduler.h, include/nccl_ofi_param.h): such a message takes
//    bytes / rail rate, bytes x (1 / rail rate - 1 / device rate) more than the model's device.
#pragma once

#include <algorithm>
#include <cmath>

#include "cost/collective.h"
#include "cost/collective_levels.h"

namespace gpuplan::collective_detail {

// NCCL drops channels while a Simple collective has fewer than channels x 512 threads x 64 B
// (NVIDIA/nccl v2.20.3-1 src/enqueue.cc, the nBytes < nc x nt x threadThreshold loop;
// src/graph/tuning.cc: Simple's threadThreshold 64 at 512 threads), so each channel carries at
// least 32 KiB until every channel runs.
inline constexpr double kNetMessageChannelMinBytes = 512.0 * 64.0;

struct NetMessageCost {
  double message_bytes = 0;  // one channel's message on one inter-domain step
  int steps = 0;             // inter-domain steps of the line
  double flush_s = 0;        // all steps together
  double rendezvous_s = 0;
  double rail_s = 0;
  double total_s() const { return flush_s + rendezvous_s + rail_s; }
};

// The per-channel message of one inter-domain step: the buffer split over the channels NCCL runs
// (at least 32 KiB each, at most net_message_channels), then a ring's step moves 1/n of it, a
// tree's the whole of it (pipelined), NVLS_TREE's heads 1/g of it, the point-to-point path one
// peer's part.
inline double net_message_bytes(CollectiveOp op, CollectiveAlgorithm algorithm, double bytes, const GroupShape& shape,
                                const CollectiveTopology& topology) {
  const double max_channels = std::max(1, topology.net_message_channels);
  const double channels = std::clamp(std::floor(bytes / kNetMessageChannelMinBytes), 1.0, max_channels);
  const double per_channel = bytes / channels;
  switch (algorithm) {
    case CollectiveAlgorithm::ring:
      return per_channel / shape.ranks;
    case CollectiveAlgorithm::tree:
      return per_channel;
    case CollectiveAlgorithm::nvls:
      return per_channel / shape.per_domain;
    case CollectiveAlgorithm::direct:
      return op == CollectiveOp::all_to_all ? per_channel / shape.ranks : per_channel;
    case CollectiveAlgorithm::auto_:
      break;
  }
  return per_channel;
}

// The transport's per-message costs of one line with `inter_steps` steps across domains. Kept out
// of line: the candidate lines call it only where the topology has such costs
// (CollectiveTopology::net_message_costs), and inlined into each of them it would push the
// unrolled line costing past the inliner's budget (a cold plan's collectives +5% instructions).
[[gnu::noinline]] inline NetMessageCost net_message_cost(CollectiveOp op, CollectiveAlgorithm algorithm,
                                                         Protocol protocol, double bytes, int inter_steps,
                                                         const GroupShape& shape, const CollectiveTopology& topology) {
  NetMessageCost c;
  if (!topology.net_message_costs || shape.domains <= 1 || inter_steps <= 0) return c;
  c.steps = inter_steps;
  c.message_bytes = net_message_bytes(op, algorithm, bytes, shape, topology);
  if (protocol == Protocol::simple) c.flush_s = inter_steps * topology.net_flush_s;
  if (topology.net_eager_max_bytes > 0 && c.message_bytes > topology.net_eager_max_bytes) {
    c.rendezvous_s = inter_steps * topology.net_rendezvous_s;
  }
  if (topology.net_stripe_min_bytes > 0 && c.message_bytes <= topology.net_stripe_min_bytes) {
    c.rail_s = inter_steps * c.message_bytes * topology.net_rail_s_per_byte;
  }
  return c;
}

}  // namespace gpuplan::collective_detail
